// Forgetting (issue 50): the turns of group $group whose source id (a LoCoMo dia_id such as
// D1:3, a JSONL id) is in $ids, in any conversation: a scan of the group's turns.
MATCH (t:Turn {group_id: $group})
WHERE t.source_id IN $ids
MATCH (c:Conversation {id: t.conversation_id})
RETURN t.id AS id, t.source_id AS source_id, c.source_id AS conversation, t.at AS at
ORDER BY c.source_id, t.idx
