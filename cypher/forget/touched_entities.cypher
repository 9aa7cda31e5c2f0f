// Forgetting (issue 50): the entities (Person, Concept) that turns $turns of group $group
// evidence, with the person's aliases: those a forget keeps lose that evidence, and their
// first time said, their conversation and their aliases are read again (forget/refresh_entities).
UNWIND $turns AS tid
MATCH (t:Turn {id: tid})
WHERE t.group_id = $group
MATCH (m:Memory)-[:EVIDENCED_BY]->(t)
WHERE m.group_id = $group AND (m:Person OR m:Concept)
RETURN DISTINCT m.id AS id
