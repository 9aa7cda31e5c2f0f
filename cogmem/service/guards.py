"""The guards every HTTP route sits behind (both servers), before auth and before a log line.

- :class:`HostCheck`: the ``Host`` header must name this server (loopback names by
  default, more with ``--allowed-host``), and a browser's ``Origin``, when sent, must be
  this server itself or an origin allowed with ``--cors-origin``. A web page the user
  opens cannot reach a loopback server by DNS rebinding or a cross-site request.
- credentials in the URL (``?token=``, ``?access_token=``, a ``cgm_`` token anywhere in
  the path or query) are refused, and blanked from the request before anything logs it.
- :class:`Redact`: a logging filter that blanks token material from every line (the
  second line of defence, for the access log and anything else).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from cogmem.service.limits import ASGIApp, BodyLimit, CatchAll, Receive, Scope, Send, send_json

if TYPE_CHECKING:
    from cogmem.service.core import Service

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
CREDENTIAL_KEYS = frozenset(
    {
        "token",
        "access_token",
        "api_key",
        "apikey",
        "api-key",
        "key",
        "auth",
        "authorization",
        "bearer",
        "password",
        "secret",
    }
)
TOKEN_RE = re.compile(r"cgm_[A-Za-z0-9_\-]*")
QUERY_SECRET_RE = re.compile(
    r"([?&;](?:" + "|".join(re.escape(k) for k in sorted(CREDENTIAL_KEYS)) + r")=)[^&;\s\"']*",
    re.IGNORECASE,
)
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """``text`` without token material: ``cgm_…`` tokens and credential query values."""
    return QUERY_SECRET_RE.sub(r"\1" + REDACTED, TOKEN_RE.sub("cgm_" + REDACTED, text))


class Redact(logging.Filter):
    """Blanks token material from a log record: its message and each of its arguments
    (kept as arguments: uvicorn's access formatter unpacks them)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()
            }
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration with :class:`Redact` on every handler."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"redact": {"()": "cogmem.service.guards.Redact"}}
    for handler in config["handlers"].values():
        handler["filters"] = ["redact"]
    return config


def redact_root_logs() -> None:
    """:class:`Redact` on the root logger's handlers (``logging.basicConfig``'s)."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(Redact())


def host_name(value: str) -> str:
    """The name of a ``Host`` header (or an origin's netloc), without its port."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """Loopback names, the address the server binds (unless it is a wildcard) and
    ``extra`` (``*`` allows any Host, for a proxy that checks it)."""
    names = {*LOOPBACK_NAMES, *(host_name(h) if h != "*" else "*" for h in extra if h.strip())}
    if bind not in ("0.0.0.0", "::", ""):
        names.add(host_name(bind))
    return frozenset(names)


def _url_secret(scope: Scope) -> bool:
    path = str(scope.get("path", ""))
    query = bytes(scope.get("query_string") or b"").decode("latin-1")
    if "cgm_" in path or "cgm_" in query:
        return True
    return any(k.strip().lower() in CREDENTIAL_KEYS for k, _ in parse_qsl(query, True))


def _blank_url(scope: Scope) -> None:
    """Blank the URL's secrets in the request itself: the access log reads it from there."""
    scope["query_string"] = redact("?" + bytes(scope.get("query_string") or b"").decode("latin-1"))[
        1:
    ].encode("latin-1")
    for key in ("path", "raw_path"):
        value = scope.get(key)
        if isinstance(value, str):
            scope[key] = TOKEN_RE.sub("cgm_" + REDACTED, value)
        elif isinstance(value, bytes):
            scope[key] = TOKEN_RE.sub("cgm_" + REDACTED, value.decode("latin-1")).encode()


class HostCheck:
    """421 for a Host this server does not answer to, 403 for a foreign browser Origin,
    400 (and the URL blanked) for a credential in the URL. ``hosts``: from
    :func:`allowed_hosts`; ``origins``: exact origins also allowed (``--cors-origin``)."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str], origins: Iterable[str] = ()):
        self.app = app
        self.hosts = hosts
        self.origins = frozenset(o.rstrip("/").lower() for o in origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if _url_secret(scope):
            _blank_url(scope)
            await send_json(
                send,
                400,
                {
                    "detail": "credentials in the URL are refused (URLs are logged): send "
                    "the token as 'Authorization: Bearer <token>'"
                },
            )
            return
        headers = dict(scope.get("headers") or [])
        host = host_name(headers.get(b"host", b"").decode("latin-1"))
        if "*" not in self.hosts and host not in self.hosts:
            await send_json(
                send,
                421,
                {
                    "detail": f"this server does not answer to host {host[:100]!r} "
                    "(start it with --allowed-host NAME to add one)"
                },
            )
            return
        origin = headers.get(b"origin")
        if origin is not None and not self._origin_ok(origin.decode("latin-1"), host):
            await send_json(
                send,
                403,
                {
                    "detail": "requests from this browser origin are refused (start the "
                    "server with --cors-origin URL to allow one)"
                },
            )
            return
        await self.app(scope, receive, send)

    def _origin_ok(self, origin: str, host: str) -> bool:
        """An origin allowed by name, or this server's own (a page it served, /docs):
        same host as the request's, which the Host check has already allowed."""
        origin = origin.strip().rstrip("/").lower()
        if origin in self.origins:
            return True
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False  # "null" (a sandboxed page, a file) and anything odd
        return host_name(parts.netloc) == host


def cors(app: ASGIApp, origins: Sequence[str]) -> ASGIApp:
    """CORS headers for ``origins`` only; without them, none (a browser page elsewhere
    cannot read an answer)."""
    if not origins:
        return app
    from starlette.middleware.cors import CORSMiddleware

    return CORSMiddleware(
        app,
        allow_origins=list(origins),
        allow_methods=["GET", "POST", "DELETE"],
        allow_headers=["Authorization", "Content-Type", "Idempotency-Key"],
    )


def wrap(
    service: Service,
    app: Any,
    hosts: frozenset[str] | None,
    origins: Sequence[str],
    upload_suffix: str = "",
) -> ASGIApp:
    """The guards both servers share, outermost first: the last resort for a bug, Host
    and Origin (and credentials in the URL), the body's size."""
    limits = service.limits
    return CatchAll(
        HostCheck(
            BodyLimit(
                app,
                limit=limits.max_body_bytes,
                upload_limit=limits.max_upload_bytes if upload_suffix else None,
                upload_suffix=upload_suffix,
                read_timeout_s=limits.read_timeout_s,
            ),
            hosts if hosts is not None else allowed_hosts("127.0.0.1"),
            origins,
        )
    )
