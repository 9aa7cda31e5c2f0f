// The last turn of a conversation (for appending live turns): its id, index and speaker.
MATCH (t:Turn {group_id: $group_id, conversation_id: $conversation_id})
RETURN t.id AS id, t.idx AS idx, t.speaker AS speaker, t.session_id AS session_id
ORDER BY t.idx DESC
LIMIT 1
