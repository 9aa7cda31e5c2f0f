// The benchmark vector index as the server describes it (provider, filter properties, config).
SHOW VECTOR INDEXES YIELD name, state, indexProvider, properties, options
WHERE name = 'bench_turn_embedding'
RETURN name, state, indexProvider, properties, options
