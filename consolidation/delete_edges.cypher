// Remove edges a consolidation job wrote earlier and no longer derives (the data or the
// settings changed). Only edges carrying job = $job between records of $group_id are touched.
// Rows: {src, type, dst}.
UNWIND $edges AS e
MATCH (a:Memory {id: e.src, group_id: $group_id})-[x]->(b:Memory {id: e.dst, group_id: $group_id})
WHERE type(x) = e.type AND x.job = $job
  AND type(x) IN ['SUPERSEDES', 'CONFLICTS_WITH', 'REFERENCES', 'CAUSES']
DELETE x
RETURN count(*) AS deleted
