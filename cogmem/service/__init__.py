"""cogmem as a service: an MCP server (``cogmem mcp``) and an HTTP API (``cogmem serve``),
both thin shells over :class:`~cogmem.api.Memory`, with API tokens scoped to groups.

The ``service`` extra installs what they need (``pip install 'cogmem[service]'``);
:mod:`cogmem.service.tokens` needs nothing beyond cogmem itself.
"""

from cogmem.service.tokens import Grant, NewToken, TokenStore

__all__ = ["Grant", "NewToken", "TokenStore"]
