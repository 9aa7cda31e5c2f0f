// Remove edges a consolidation job wrote earlier and no longer derives (the data or the
// settings changed). Only edges carrying job = $job between records of $group_id are touched.
// Rows: {src, type, dst}.
// Both ends of every relationship removed are stamped with a bumped vector sequence (one
// :CogmemMeta node per group, locked until commit): searches read their relationships again.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group_id})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $edges AS e
MATCH (a:Memory {id: e.src, group_id: $group_id})-[x]->(b:Memory {id: e.dst, group_id: $group_id})
WHERE type(x) = e.type AND x.job = $job
  AND type(x) IN ['SUPERSEDES', 'CONFLICTS_WITH', 'REFERENCES', 'CAUSES']
SET a.vseq = vseq, b.vseq = vseq
DELETE x
RETURN count(*) AS deleted
