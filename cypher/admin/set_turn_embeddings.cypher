// Store new turn vectors, with the turn's token rows (late interaction) where the embedder
// gives them; null removes rows an earlier embedder left.
UNWIND $rows AS row
MATCH (t:Turn {id: row.id})
SET t.embedding = row.embedding,
    t.token_rows = row.token_rows,
    t.token_scales = row.token_scales
WITH t, row
CALL (t, row) {
  WITH t, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)  // stored as float32
}
RETURN count(t) AS updated
