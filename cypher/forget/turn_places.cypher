// Forgetting (issue 50): the sessions and conversations that hold the turns $turns of group
// $group, each with how many turns it holds in all.
UNWIND $turns AS tid
MATCH (s:Session)-[:HAS_TURN]->(t:Turn {id: tid})
WHERE t.group_id = $group
WITH DISTINCT s
MATCH (c:Conversation)-[:HAS_SESSION]->(s)
RETURN s.id AS session_id, c.id AS conversation_id, COUNT { (s)-[:HAS_TURN]->() } AS session_turns,
       COUNT { (c)-[:HAS_SESSION]->()-[:HAS_TURN]->() } AS conversation_turns
