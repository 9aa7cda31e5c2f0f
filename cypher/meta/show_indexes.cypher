// The indexes cogmem relies on, with their state and options.
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, state, options
RETURN name, type, labelsOrTypes, properties, state, options
ORDER BY name
