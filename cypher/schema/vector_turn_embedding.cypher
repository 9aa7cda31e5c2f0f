// Vector index over verbatim turns; same dimension as the memory index.
CREATE VECTOR INDEX turn_embedding IF NOT EXISTS
FOR (t:Turn) ON t.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}}
