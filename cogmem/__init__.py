"""cogmem: long-term, provenance-aware memory for LLM conversations, on Neo4j."""

__version__ = "0.1.0"
