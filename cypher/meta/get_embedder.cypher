// The embedder the store was built with (name and vector dimension), if any, and whether
// its nodes are known to carry vector sequence numbers (see meta/set_sequenced).
MATCH (m:CogmemMeta {key: 'embedder'})
RETURN m.name AS name, m.dimension AS dimension, coalesce(m.sequenced, false) AS sequenced
