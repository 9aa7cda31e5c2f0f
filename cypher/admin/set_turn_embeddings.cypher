// Store new turn vectors.
UNWIND $rows AS row
MATCH (t:Turn {id: row.id})
SET t.embedding = row.embedding
RETURN count(t) AS updated
