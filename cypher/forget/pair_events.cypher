// Forgetting (issue 50): the input of event consolidation (consolidation/event_candidates,
// same columns) for the (person, concept) $pairs of group $group only, without the events
// in $gone (about to be forgotten).
UNWIND $pairs AS pair
MATCH (p:Memory:Person {id: pair.person_id})-[:PARTICIPATED_IN]->(e:Memory:Event)
WHERE p.group_id = $group AND e.group_id = $group AND NOT e.id IN $gone
MATCH (e)-[:INVOLVES]->(c:Memory:Concept {id: pair.concept_id})
WITH p, c, e, coalesce(e.time_start, e.at) AS t
WHERE t IS NOT NULL
RETURN p.id AS person_id, p.name AS person, c.id AS concept_id, c.name AS concept,
       e.id AS event_id, e.content AS content, t AS t, coalesce(e.time_end, t) AS t_end,
       coalesce(e.at, t) AS at
ORDER BY person_id, concept_id, t, event_id
