// Forgetting (issue 50): a claim of group $group ($ids) that was CONFLICTING when said because
// of a claim now forgotten, and conflicts with none any more, was said CURRENT.
UNWIND $ids AS cid
MATCH (cl:Memory:Claim {id: cid})
WHERE cl.group_id = $group AND cl.first_status = 'CONFLICTING'
  AND NOT EXISTS { (cl)-[:CONFLICTS_WITH]-(:Claim) }
SET cl.first_status = 'CURRENT', cl.vseq = $vseq
RETURN count(cl) AS settled
