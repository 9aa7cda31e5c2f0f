// The edges a consolidation job owns in a group (relationship property job = $job), between
// memory records of that group: source id, type, destination id and the rule that made it.
MATCH (a:Memory {group_id: $group_id})-[x:SUPERSEDES|CONFLICTS_WITH|REFERENCES|CAUSES]->(b:Memory {group_id: $group_id})
WHERE x.job = $job
RETURN a.id AS src, type(x) AS type, b.id AS dst, x.rule AS rule
ORDER BY src, type, dst
