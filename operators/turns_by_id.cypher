// Turns by id, with what Evidence shows about them.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
MATCH (t:Turn)
WHERE t.id IN $ids AND t.group_id = $group
  AND ($as_of IS NULL OR coalesce(t.at, t.first_at) <= $as_of)
RETURN t.id AS id, t.source_id AS source_id, t.speaker AS speaker, t.full_text AS text,
       t.at AS at, t.idx AS idx, t.conversation_id AS conversation_id
