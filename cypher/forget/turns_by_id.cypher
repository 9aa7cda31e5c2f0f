// Forgetting (issue 50): the turns of group $group whose node id is in $ids, with their source
// id and the source id of their conversation (index seeks on the turn id).
UNWIND $ids AS tid
MATCH (t:Turn {id: tid})
WHERE t.group_id = $group
MATCH (c:Conversation {id: t.conversation_id})
RETURN t.id AS id, t.source_id AS source_id, c.source_id AS conversation, t.at AS at
ORDER BY c.source_id, t.idx
