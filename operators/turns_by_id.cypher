// Turns by id, with what Evidence shows about them.
MATCH (t:Turn)
WHERE t.id IN $ids AND t.group_id = $group
RETURN t.id AS id, t.source_id AS source_id, t.speaker AS speaker, t.full_text AS text,
       t.at AS at, t.idx AS idx, t.conversation_id AS conversation_id
