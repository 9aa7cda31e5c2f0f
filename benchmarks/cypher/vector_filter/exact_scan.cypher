// Exact top-k in one group: seek the group through the group_id range index and score every
// member with cosine similarity (works on 5.26 and 2026.x).
MATCH (n:Turn {group_id: $group})
WITH n, vector.similarity.cosine(n.embedding, $query) AS score
ORDER BY score DESC
LIMIT $k
RETURN n.id AS id, score
