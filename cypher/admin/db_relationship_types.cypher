// Every relationship type in use in the database (to check the fixed vocabulary).
CALL db.relationshipTypes() YIELD relationshipType
RETURN collect(relationshipType) AS types
