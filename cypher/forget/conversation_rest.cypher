// Forgetting (issue 50): the turns that stay in conversations $conversations (node ids) of group
// $group, in order, with what extraction reads of them, and the ids of the records each one
// is the own turn of (its turn_id) or the entities it evidences: to find the turns a fresh
// extraction would read otherwise.
MATCH (c:Conversation)-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(t:Turn)
WHERE c.id IN $conversations AND c.group_id = $group
WITH c, t ORDER BY t.idx
RETURN c.id AS conversation_id, c.source_id AS conversation, c.speakers AS speakers,
       collect({id: t.id, source_id: t.source_id, speaker: t.speaker, text: t.text,
                caption: t.caption, at: t.at, idx: t.idx, session_index: t.session_index,
                records: [(m:Memory)-[:EVIDENCED_BY]->(t)
                          WHERE (m.turn_id = t.id OR m:Person OR m:Concept) | m.id]}) AS turns
