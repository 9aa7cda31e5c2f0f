// Neo4j 5.26: HNSW vector index on :Turn(embedding), cosine, no filter properties.
CREATE VECTOR INDEX bench_turn_embedding IF NOT EXISTS
FOR (n:Turn) ON n.embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimensions,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: $quantization
}}
