// The dimensions of the existing vector indexes (empty when none exist yet).
SHOW VECTOR INDEXES YIELD name, options
WHERE name IN ['memory_embedding', 'turn_embedding', 'claim_embedding']
RETURN name, options.indexConfig['vector.dimensions'] AS dimension
