// Forgetting (issue 50): the conversation (node id) of each of the turns $turns of group $group.
UNWIND $turns AS tid
MATCH (t:Turn {id: tid})
WHERE t.group_id = $group
RETURN t.id AS id, t.conversation_id AS conversation_id
