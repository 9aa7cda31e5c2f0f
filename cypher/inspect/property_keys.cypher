// Every property key the database has ever seen.
CALL db.propertyKeys() YIELD propertyKey
RETURN collect(propertyKey) AS keys
