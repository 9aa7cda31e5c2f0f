// Forgetting (issue 50): plans (Events, Todos) of group $group ($ids) that a forgotten record
// had done or called off (a SUPERSEDES edge without a job): with no such edge left, the plan
// is as it was said (first_status) and open again; else it ends when the earliest record
// that still replaces it was said.
UNWIND $ids AS rid
MATCH (b:Memory {id: rid})
WHERE b.group_id = $group
OPTIONAL MATCH (a:Memory)-[x:SUPERSEDES]->(b)
WHERE x.job IS NULL
WITH b, min(a.at) AS first_by, count(a) AS still
SET b.status = CASE WHEN still = 0 THEN coalesce(b.first_status, b.status) ELSE b.status END,
    b.valid_to = CASE WHEN still = 0 THEN null ELSE first_by END,
    b.vseq = $vseq
RETURN count(b) AS restored
