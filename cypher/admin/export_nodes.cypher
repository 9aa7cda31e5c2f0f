// Export, one page of a group's nodes: id, labels and properties (the vector apart, and
// only when $embeddings; a turn's token rows never: an import makes them again), ordered by
// id, the $limit first ids after $after.
CALL {
  MATCH (n:Memory {group_id: $group}) RETURN n
  UNION
  MATCH (n:Turn {group_id: $group}) RETURN n
  UNION
  MATCH (n:Session {group_id: $group}) RETURN n
  UNION
  MATCH (n:Conversation {group_id: $group}) RETURN n
}
WITH n
WHERE n.id > $after
RETURN n.id AS id, labels(n) AS labels,
       n {.*, embedding: null, token_rows: null, token_scales: null} AS props,
       n.embedding IS NOT NULL AS embedded,
       CASE WHEN $embeddings THEN n.embedding ELSE null END AS embedding
ORDER BY id
LIMIT $limit
