// Forgetting (issue 50): the (person, concept) pairs of the consolidated Facts of group $group
// that an event in $events (record ids about to go) supports: their Facts are made again
// from the events that stay, by the rule that made them (cogmem.consolidate.facts).
UNWIND $events AS eid
MATCH (f:Memory:Fact)-[:SUPPORTED_BY]->(e:Memory:Event {id: eid})
WHERE f.group_id = $group AND f.consolidated = true AND e.group_id = $group
RETURN DISTINCT f.person_id AS person_id, f.concept_id AS concept_id
ORDER BY person_id, concept_id
