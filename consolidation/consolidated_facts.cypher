// The consolidated Facts of a group (made by event consolidation), with the person and concept
// they are about, their status and the ids of the Events that support them.
MATCH (f:Memory:Fact {group_id: $group_id, consolidated: true})
RETURN f.id AS id, f.person_id AS person_id, f.concept_id AS concept_id, f.status AS status,
       f.time_start AS time_start, f.time_end AS time_end, f.content AS content,
       COLLECT {
         MATCH (f)-[:SUPPORTED_BY]->(e:Memory:Event {group_id: $group_id})
         RETURN e.id
       } AS event_ids
ORDER BY id
