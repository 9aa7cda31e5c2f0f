// The indexes cogmem relies on, with their state and options.
SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state, options
RETURN name, type, entityType, labelsOrTypes, properties, state, options
ORDER BY name
