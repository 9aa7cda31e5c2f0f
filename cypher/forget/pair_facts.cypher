// Forgetting (issue 50): the consolidated Facts of group $group about the (person, concept)
// $pairs (rows {person_id, concept_id}), read from each person's HAS_FACT edges.
UNWIND $pairs AS pair
MATCH (p:Memory:Person {id: pair.person_id})-[:HAS_FACT]->(f:Memory:Fact)
WHERE p.group_id = $group AND f.group_id = $group AND f.consolidated = true
  AND f.concept_id = pair.concept_id
RETURN DISTINCT f.id AS id
ORDER BY id
