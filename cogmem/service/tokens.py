"""API tokens: scoped to one group, optionally read-only, stored hashed, shown once.

A token is ``cgm_`` plus 32 random bytes (URL-safe base64). Neo4j keeps only its sha256 on a
``:CogmemMeta`` node (key ``token:<hex digest>``, unique), with the group it may touch, a
read-only flag and a public id (the first 12 hex digits of the digest) that ``token list``
shows and ``token revoke`` takes. The secret itself is never stored, logged or printed again.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from datetime import datetime

from pydantic import BaseModel, Field

from cogmem.store import Store

PREFIX = "cgm_"
ID_LENGTH = 12


class Grant(BaseModel):
    """What a caller may do: one group, read-only or not; ``token_id`` None without auth."""

    group: str = Field(min_length=1)
    read_only: bool = False
    token_id: str | None = None
    name: str | None = None
    created_at: datetime | None = None

    def may_write(self) -> bool:
        return not self.read_only

    def allows(self, group: str) -> bool:
        return group == self.group


class NewToken(BaseModel):
    """A freshly created token: ``secret`` is shown once and never again."""

    secret: str
    grant: Grant


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer …`` header, else None."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    value = value.strip()
    if scheme.lower() != "bearer" or not value:
        return None
    return value


def _grant(row: dict[str, object]) -> Grant:
    return Grant.model_validate(row)


class TokenStore:
    """Create, verify, list and revoke tokens in the store's database.

    ``verify`` caches a verified token's grant for ``cache_s`` seconds: a token revoked
    from another process (``cogmem token revoke``) stops working in a running server
    within that long, 1 s by default (a revoke through this store: at once; misses are
    not cached).
    """

    def __init__(self, store: Store, cache_s: float = 1.0) -> None:
        self._store = store
        self.cache_s = cache_s
        self._cache: dict[str, tuple[float, Grant]] = {}
        self._lock = threading.Lock()

    def create(self, group: str, read_only: bool = False, name: str | None = None) -> NewToken:
        """A token for ``group`` (its blanks stripped: "  alice  " is group "alice")."""
        group = group.strip()
        if not group:
            raise ValueError("a token needs a group")
        secret = PREFIX + secrets.token_urlsafe(32)
        hexdigest = digest(secret)
        rows = self._store.write(
            "auth/create_token",
            key=f"token:{hexdigest}",
            token_id=hexdigest[:ID_LENGTH],
            group=group,
            read_only=read_only,
            name=name,
        )
        return NewToken(secret=secret, grant=_grant(rows[0]))

    def verify(self, secret: str | None) -> Grant | None:
        """The grant of a valid token, else None (the comparison is on the digest)."""
        if not secret or not secret.startswith(PREFIX) or len(secret) > 200:
            return None
        hexdigest = digest(secret)
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(hexdigest)
            if hit is not None and now - hit[0] < self.cache_s:
                return hit[1]
        # one round trip, not retried: a Neo4j that is down is a quick 503, not 30 s
        rows = self._store.glance("auth/find_token", key=f"token:{hexdigest}")
        if not rows or not hmac.compare_digest(str(rows[0]["token_id"]), hexdigest[:ID_LENGTH]):
            return None
        grant = _grant(rows[0])
        with self._lock:
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[hexdigest] = (now, grant)
        return grant

    def list(self, group: str | None = None) -> list[Grant]:
        return [_grant(r) for r in self._store.read("auth/list_tokens", group=group)]

    def revoke(self, token_id: str) -> bool:
        rows = self._store.write("auth/revoke_token", token_id=token_id)
        with self._lock:
            self._cache = {k: v for k, v in self._cache.items() if not k.startswith(token_id)}
        return bool(rows and int(rows[0]["revoked"]))
