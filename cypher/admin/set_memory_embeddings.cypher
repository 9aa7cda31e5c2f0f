// Store new memory record vectors.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
SET m.embedding = row.embedding
RETURN count(m) AS updated
