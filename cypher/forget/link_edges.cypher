// Forgetting (issue 50): the artifact-link edges (job 'link') from the records $ids of group
// $group, as (src, type, dst).
UNWIND $ids AS rid
MATCH (a:Memory {id: rid})-[x:REFERENCES|CAUSES]->(b:Memory)
WHERE a.group_id = $group AND x.job = 'link'
RETURN a.id AS src, type(x) AS type, b.id AS dst
