// Drop the memory vector index (reindex with another embedder).
DROP INDEX memory_embedding IF EXISTS
