// Record the schema version whose statements have been applied (see cogmem.server.schema).
MATCH (m:CogmemMeta {key: 'embedder'})
SET m.schema_version = $version
