"""The database side: the local Neo4j manager (:mod:`~cogmem.server.local`), the schema and
the recorded embedder (:mod:`~cogmem.server.schema`), and re-embedding
(:mod:`~cogmem.server.reindex`).

The submodules are imported on use, not here: ``cogmem.server.local`` needs neither the
driver nor numpy, and the CLI's ``neo4j`` commands start fast.
"""
