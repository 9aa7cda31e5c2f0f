// The embedder the store was built with (name and vector dimension), if any.
MATCH (m:CogmemMeta {key: 'embedder'})
RETURN m.name AS name, m.dimension AS dimension
