// Input of incremental claim reconciliation (at ingest): the Claims whose speaker (the Person
// that CLAIMS it) has a lower-cased name in $sources and whose target (the node it TARGETS)
// has a lower-cased name in $targets, with the same columns as claim_candidates, plus the
// reconciliation edges ($job) those claims already own, as {type, dst}.
MATCH (p:Memory:Person {group_id: $group_id})-[:CLAIMS]->(cl:Memory:Claim {group_id: $group_id})
WHERE toLower(p.name) IN $sources
MATCH (cl)-[:TARGETS]->(x:Memory {group_id: $group_id})
WHERE toLower(x.name) IN $targets
WITH DISTINCT cl
RETURN cl.id AS id, cl.source AS source, cl.target AS target, cl.speaker AS speaker,
       cl.predicate AS predicate, cl.sentiment AS sentiment, cl.content AS content,
       cl.at AS at, cl.status AS status, cl.embedding AS embedding,
       COLLECT { MATCH (p:Memory:Person {group_id: $group_id})-[:CLAIMS]->(cl) RETURN p.name } AS source_names,
       COLLECT { MATCH (cl)-[:TARGETS]->(x:Memory {group_id: $group_id}) RETURN x.name } AS target_names,
       COLLECT { MATCH (cl)-[:EVIDENCED_BY]->(t:Turn {group_id: $group_id}) RETURN t.session_id } AS session_ids,
       COLLECT { MATCH (cl)-[:SUPERSEDES]->(o:Memory:Claim {group_id: $group_id}) RETURN o.id } AS supersedes,
       COLLECT { MATCH (cl)-[:CONFLICTS_WITH]->(o:Memory:Claim {group_id: $group_id}) RETURN o.id } AS conflicts_with,
       COLLECT {
         MATCH (cl)-[e:SUPERSEDES|CONFLICTS_WITH]->(o:Memory:Claim {group_id: $group_id})
         WHERE e.job = $job
         RETURN {type: type(e), dst: o.id}
       } AS owned
ORDER BY id
