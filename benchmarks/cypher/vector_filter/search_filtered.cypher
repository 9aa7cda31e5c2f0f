// Approximate top-k in one group on 2026.x: the SEARCH clause with the group filter applied
// inside the vector index (group_id is a filter property of the index).
CYPHER 25
MATCH (n:Turn)
  SEARCH n IN (
    VECTOR INDEX bench_turn_embedding
    FOR $query
    WHERE n.group_id = $group
    LIMIT $k
  ) SCORE AS score
RETURN n.id AS id, score
ORDER BY score DESC
