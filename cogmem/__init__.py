"""cogmem: long-term, provenance-aware memory for LLM conversations, on Neo4j."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Clients", "Memory", "__version__"]

if TYPE_CHECKING:
    from cogmem.api import Memory
    from cogmem.clients import Clients


def __getattr__(name: str) -> Any:
    # Imported lazily: `import cogmem` stays light (the CLI starts fast, and the
    # statement loader works without the driver installed).
    if name == "Memory":
        from cogmem.api import Memory

        return Memory
    if name == "Clients":
        from cogmem.clients import Clients

        return Clients
    raise AttributeError(f"module 'cogmem' has no attribute {name!r}")
