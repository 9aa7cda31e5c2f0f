// Drop the claim vector index (reindex with another embedder).
DROP INDEX claim_embedding IF EXISTS
