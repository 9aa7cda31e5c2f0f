// The consolidated Facts of a group (made by event consolidation), with the person and concept
// they are about, their status and the ids of the Events that support them (expanded from
// each fact; the far node has no label with a group_id index, which would make the planner
// seek the whole group once per fact).
MATCH (f:Memory:Fact {group_id: $group_id, consolidated: true})
RETURN f.id AS id, f.person_id AS person_id, f.concept_id AS concept_id, f.status AS status,
       f.time_start AS time_start, f.time_end AS time_end, f.content AS content,
       [(f)-[:SUPPORTED_BY]->(e:Event) WHERE e.group_id = $group_id | e.id] AS event_ids
ORDER BY id
