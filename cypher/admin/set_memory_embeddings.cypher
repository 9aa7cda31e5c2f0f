// Store new memory record vectors.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
SET m.embedding = row.embedding
WITH m, row
CALL (m, row) {
  WITH m, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)  // stored as float32
}
RETURN count(m) AS updated
