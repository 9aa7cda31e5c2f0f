// Drop the turn vector index (reindex with another embedder).
DROP INDEX turn_embedding IF EXISTS
