// Set the reconciliation status of claims (CURRENT, SUPERSEDED or CONFLICTING). Rows: {id, status}.
// Only the status property changes; the claim itself is kept as it was said.
UNWIND $rows AS r
MATCH (cl:Memory:Claim {id: r.id, group_id: $group_id})
WHERE r.status IN ['CURRENT', 'SUPERSEDED', 'CONFLICTING']
SET cl.status = r.status
RETURN count(cl) AS claims
