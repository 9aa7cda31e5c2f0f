// Which of these records ($ids) already carry a vector: an entity's vector depends only on
// its name, which its id encodes, so a stored one is kept instead of embedding it again.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.embedding IS NOT NULL
RETURN m.id AS id
