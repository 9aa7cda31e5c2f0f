// Every node label in use in the database (to check that only the fixed vocabulary is).
CALL db.labels() YIELD label
RETURN collect(label) AS labels
