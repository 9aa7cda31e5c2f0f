// Input of incremental claim reconciliation (at ingest): the Claims whose speaker (the Person
// that CLAIMS it) has a lower-cased name in $sources and whose target (the node it TARGETS)
// has a lower-cased name in $targets, with the same columns as claim_candidates, plus the
// reconciliation edges ($job) those claims already own, as {type, dst}.
// Planned from the group's persons outwards: each claim's neighbours are read by expanding
// from the claim (pattern comprehensions), never by scanning the group's index once per
// claim (a live turn paid 40-460 ms for that in a 100-turn group). Far nodes carry no
// label that has a group_id index (Memory, Turn): with one the planner seeks the index.
MATCH (p:Memory {group_id: $group_id})
WHERE p:Person AND toLower(p.name) IN $sources
MATCH (p)-[:CLAIMS]->(cl:Claim)
WHERE cl.group_id = $group_id
  AND any(x IN [(cl)-[:TARGETS]->(x) WHERE x.group_id = $group_id | toLower(x.name)]
          WHERE x IN $targets)
WITH DISTINCT cl
RETURN cl.id AS id, cl.source AS source, cl.target AS target, cl.speaker AS speaker,
       cl.predicate AS predicate, cl.sentiment AS sentiment, cl.content AS content,
       cl.at AS at, cl.status AS status, cl.embedding AS embedding,
       [(s:Person)-[:CLAIMS]->(cl) WHERE s.group_id = $group_id | s.name] AS source_names,
       [(cl)-[:TARGETS]->(x) WHERE x.group_id = $group_id | x.name] AS target_names,
       [(cl)-[:EVIDENCED_BY]->(t) WHERE t.group_id = $group_id | t.session_id] AS session_ids,
       [(cl)-[:SUPERSEDES]->(o:Claim) WHERE o.group_id = $group_id | o.id] AS supersedes,
       [(cl)-[:CONFLICTS_WITH]->(o:Claim) WHERE o.group_id = $group_id | o.id] AS conflicts_with,
       [(cl)-[e:SUPERSEDES|CONFLICTS_WITH]->(o:Claim)
        WHERE o.group_id = $group_id AND e.job = $job | {type: type(e), dst: o.id}] AS owned
ORDER BY id
