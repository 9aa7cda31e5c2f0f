// Input of claim reconciliation: every Claim of the group with its speaker (the Person that
// CLAIMS it), its target (the node it TARGETS), the session and position of the turn it came
// from, its vector, and the SUPERSEDES / CONFLICTS_WITH edges it already has to other claims.
MATCH (cl:Memory:Claim {group_id: $group_id})
RETURN cl.id AS id, cl.source AS source, cl.target AS target, cl.speaker AS speaker,
       cl.predicate AS predicate, cl.sentiment AS sentiment, cl.content AS content,
       cl.at AS at, cl.status AS status, cl.embedding AS embedding,
       COLLECT { MATCH (p:Memory:Person {group_id: $group_id})-[:CLAIMS]->(cl) RETURN p.name } AS source_names,
       COLLECT { MATCH (cl)-[:TARGETS]->(x:Memory {group_id: $group_id}) RETURN x.name } AS target_names,
       COLLECT { MATCH (cl)-[:EVIDENCED_BY]->(t:Turn {group_id: $group_id}) RETURN t.session_id } AS session_ids,
       COLLECT { MATCH (cl)-[:SUPERSEDES]->(o:Memory:Claim {group_id: $group_id}) RETURN o.id } AS supersedes,
       COLLECT { MATCH (cl)-[:CONFLICTS_WITH]->(o:Memory:Claim {group_id: $group_id}) RETURN o.id } AS conflicts_with
ORDER BY id
