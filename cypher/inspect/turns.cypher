// The turns of a group in conversation order.
MATCH (t:Turn {group_id: $group})
RETURN t.id AS id, t.source_id AS source_id, t.speaker AS speaker, t.text AS text,
       t.full_text AS full_text, t.caption AS caption, t.at AS at, t.idx AS idx,
       t.conversation_id AS conversation_id
ORDER BY t.conversation_id, t.idx
