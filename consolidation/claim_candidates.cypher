// Input of claim reconciliation: every Claim of the group with its speaker (the Person that
// CLAIMS it), its target (the node it TARGETS), the session and position of the turn it came
// from, its vector, and the SUPERSEDES / CONFLICTS_WITH edges it already has to other claims.
// Each claim's neighbours are read by expanding from the claim (pattern comprehensions whose
// far nodes carry no label with a group_id index): with such a label the planner seeks the
// whole group once per claim.
MATCH (cl:Memory:Claim {group_id: $group_id})
RETURN cl.id AS id, cl.source AS source, cl.target AS target, cl.speaker AS speaker,
       cl.predicate AS predicate, cl.sentiment AS sentiment, cl.content AS content,
       cl.at AS at, cl.status AS status, cl.embedding AS embedding,
       [(s:Person)-[:CLAIMS]->(cl) WHERE s.group_id = $group_id | s.name] AS source_names,
       [(cl)-[:TARGETS]->(x) WHERE x.group_id = $group_id | x.name] AS target_names,
       [(cl)-[:EVIDENCED_BY]->(t) WHERE t.group_id = $group_id | t.session_id] AS session_ids,
       [(cl)-[:SUPERSEDES]->(o:Claim) WHERE o.group_id = $group_id | o.id] AS supersedes,
       [(cl)-[:CONFLICTS_WITH]->(o:Claim) WHERE o.group_id = $group_id | o.id] AS conflicts_with
ORDER BY id
