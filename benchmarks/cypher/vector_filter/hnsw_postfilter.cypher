// Approximate top-k in one group on 5.26: ask the HNSW index for $candidates neighbours over
// all groups, keep those of the group, return the best $k (fewer when oversampling was short).
CALL db.index.vector.queryNodes('bench_turn_embedding', $candidates, $query)
YIELD node, score
WITH node, score
WHERE node.group_id = $group
RETURN node.id AS id, score
ORDER BY score DESC
LIMIT $k
