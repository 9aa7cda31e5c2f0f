// Input of event consolidation: every Event of the group that links one Person to one Concept,
// (p:Person)-[:PARTICIPATED_IN]->(e:Event)-[:INVOLVES]->(c:Concept), with the event's
// referenced time t (time_start, else the time it was said, at). Events without any time are
// left out. One row per (person, concept, event).
MATCH (p:Memory:Person {group_id: $group_id})-[:PARTICIPATED_IN]->(e:Memory:Event {group_id: $group_id})
MATCH (e)-[:INVOLVES]->(c:Memory:Concept {group_id: $group_id})
WITH p, c, e, coalesce(e.time_start, e.at) AS t
WHERE t IS NOT NULL
RETURN p.id AS person_id, p.name AS person, c.id AS concept_id, c.name AS concept,
       e.id AS event_id, e.content AS content, t AS t, coalesce(e.time_end, t) AS t_end,
       coalesce(e.at, t) AS at
ORDER BY person_id, concept_id, t, event_id
