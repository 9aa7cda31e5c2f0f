// Neo4j 2026.x (Cypher 25): HNSW vector index on :Turn(embedding), cosine, with group_id
// stored in the index as a filter property so SEARCH ... WHERE n.group_id = $g filters
// inside the search.
CYPHER 25
CREATE VECTOR INDEX bench_turn_embedding IF NOT EXISTS
FOR (n:Turn) ON n.embedding
WITH [n.group_id]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimensions,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: $quantization
}}
