// Forgetting (issue 50): the conversations of group $group whose source id or node id is $id,
// with their turns (none for an empty conversation).
MATCH (c:Conversation {group_id: $group})
WHERE c.source_id = $id OR c.id = $id
OPTIONAL MATCH (c)-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(t:Turn)
WITH c, t ORDER BY t.idx
RETURN c.id AS conversation_id, c.source_id AS conversation,
       [x IN collect(t) | {id: x.id, source_id: x.source_id, at: x.at}] AS turns
