// Approximate top-k in one group on 5.26, rescored: ask the HNSW index for $candidates
// neighbours over all groups, keep those of the group, score them again exactly from the
// stored embedding (the index's own scores come from its quantized copy) and return the
// best $k.
CALL db.index.vector.queryNodes('bench_turn_embedding', $candidates, $query)
YIELD node
WITH node
WHERE node.group_id = $group
WITH node, vector.similarity.cosine(node.embedding, $query) AS score
ORDER BY score DESC
LIMIT $k
RETURN node.id AS id, score
