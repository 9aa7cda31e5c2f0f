// Set the reconciliation status of claims (CURRENT, SUPERSEDED or CONFLICTING). Rows: {id, status}.
// Only the status property changes; the claim itself is kept as it was said.
// Every write that changes what a search reads of a node bumps the group's vector sequence (one
// :CogmemMeta node per group, locked until commit, so writes of a group number in commit
// order) and stamps its nodes with it: searches refresh their in-process vectors by it.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group_id})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $rows AS r
MATCH (cl:Memory:Claim {id: r.id, group_id: $group_id})
WHERE r.status IN ['CURRENT', 'SUPERSEDED', 'CONFLICTING']
SET cl.status = r.status, cl.vseq = vseq
RETURN count(cl) AS claims
