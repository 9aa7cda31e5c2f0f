// Record the embedder the store is built with.
MERGE (m:CogmemMeta {key: 'embedder'})
SET m.name = $name, m.dimension = $dimension, m.updated_at = datetime()
