// A page of turns (all groups), by id, for re-embedding with another embedder.
MATCH (t:Turn)
WHERE t.id > $after
RETURN t.id AS id, t.speaker AS speaker, t.full_text AS full_text
ORDER BY t.id
LIMIT $limit
