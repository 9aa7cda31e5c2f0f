// A page of memory records (all groups), by id, for re-embedding with another embedder.
MATCH (m:Memory)
WHERE m.id > $after
RETURN m.id AS id, m.content AS content, m.name AS name
ORDER BY m.id
LIMIT $limit
