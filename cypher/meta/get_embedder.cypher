// The embedder the store was built with (name and vector dimension), if any, whether its
// nodes are known to carry vector sequence numbers (see meta/set_sequenced), and the schema
// version last applied (1: a store from before versions were recorded).
MATCH (m:CogmemMeta {key: 'embedder'})
RETURN m.name AS name, m.dimension AS dimension, coalesce(m.sequenced, false) AS sequenced,
       coalesce(m.schema_version, 1) AS schema
