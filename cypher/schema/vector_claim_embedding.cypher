// Vector index over Claim records alone (opinions: who thinks what of whom), a few percent
// of a store's records: a typed search for claims in a large group finds them here in one
// ask, where memory_embedding's nearest are mostly other types. Same dimension as the others.
CREATE VECTOR INDEX claim_embedding IF NOT EXISTS
FOR (m:Claim) ON m.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}}
