// Insert one batch of benchmark :Turn nodes: id, group_id and a unit embedding.
UNWIND $rows AS row
CREATE (:Turn {id: row.id, group_id: row.group_id, embedding: row.embedding, bench: true})
