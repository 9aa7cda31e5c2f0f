// Set the reconciliation status of claims (CURRENT, SUPERSEDED or CONFLICTING). Rows: {id,
// status, valid_to}: valid_to, for a superseded claim, when the claim that replaced it was
// said (its status at an earlier time is then its first_status: see operators/). Only those
// properties change; the claim itself is kept as it was said.
// Every write that changes what a search reads of a node bumps the group's vector sequence (one
// :CogmemMeta node per group, locked until commit, so writes of a group number in commit
// order) and stamps its nodes with it: searches refresh their in-process vectors by it.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group_id})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $rows AS r
MATCH (cl:Memory:Claim {id: r.id, group_id: $group_id})
WHERE r.status IN ['CURRENT', 'SUPERSEDED', 'CONFLICTING']
SET cl.status = r.status, cl.vseq = vseq,
    cl.valid_to = CASE WHEN r.status = 'SUPERSEDED' THEN r.valid_to END,
    cl.first_status = coalesce(cl.first_status,
                               CASE WHEN r.status = 'CONFLICTING' THEN 'CONFLICTING'
                                    ELSE 'CURRENT' END)
RETURN count(cl) AS claims
