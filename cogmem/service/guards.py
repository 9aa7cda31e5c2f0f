"""The guards every HTTP route sits behind (both servers), before auth and before a log line.

- :class:`HostCheck`: the ``Host`` header must name this server (loopback names by
  default, more with ``--allowed-host``), and a browser's ``Origin``, when sent, must be
  this server itself or an origin allowed with ``--cors-origin``. A web page the user
  opens cannot reach a loopback server by DNS rebinding or a cross-site request.
- credentials in the URL (``?token=``, ``?access_token=``, a ``cgm_`` token anywhere in
  the path or query, percent-encoded once or more too: ``%63gm_``, ``cgm%5F``) are
  refused, and blanked from the request before anything logs it.
- :class:`Redact`: a logging filter that blanks token material from every line (the
  second line of defence, for the access log and anything else).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, unquote_plus, urlsplit

from cogmem.service.limits import (
    ASGIApp,
    BodyLimit,
    CatchAll,
    Receive,
    Scope,
    Send,
    has_body,
    send_json,
)

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


def _encoded(char: str) -> str:
    """A pattern for ``char`` as it is, or percent-encoded once or more (``_``: ``%5F``,
    ``%255F``, …; hex digits in either case)."""
    code = f"{ord(char):02X}"
    hex_ = "".join(f"[{d}{d.lower()}]" if d.isalpha() else d for d in code)
    return f"(?:{re.escape(char)}|%(?:25)*{hex_})"


TOKEN_ANY_RE = re.compile(
    "".join(_encoded(c) for c in "cgm_") + r"(?:[A-Za-z0-9_\-]|%(?:25)*[0-9A-Fa-f]{2})*"
)
"""A token as it may stand in a URL or a log line: ``cgm_…``, ``%63gm_…``, ``cgm%5F…``,
``cgm%255F…`` (a prefix percent-encoded once or more)."""
QUERY_SECRET_RE = re.compile(
    r"([?&;](?:" + "|".join(re.escape(k) for k in sorted(CREDENTIAL_KEYS)) + r")=)[^&;\s\"']*",
    re.IGNORECASE,
)
REDACTED = "[redacted]"
MAX_DECODES = 8  # a URL percent-decoded this often and still changing is refused whole


def redact(text: str) -> str:
    """``text`` without token material: ``cgm_…`` tokens (percent-encoded too) and
    credential query values."""
    return QUERY_SECRET_RE.sub(r"\1" + REDACTED, TOKEN_ANY_RE.sub("cgm_" + REDACTED, text))


def decoded_forms(text: str) -> list[str]:
    """``text`` and each form of it percent-decoded once more, until nothing changes
    (at most :data:`MAX_DECODES` + 1 forms); ``+`` is read as a space in all but the first."""
    forms = [text]
    for _ in range(MAX_DECODES):
        nxt = unquote_plus(forms[-1], encoding="latin-1")
        if nxt == forms[-1]:
            break
        forms.append(nxt)
    return forms


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


def _url_parts(scope: Scope) -> tuple[str, str]:
    """The request's path (as sent, else as decoded) and query, as text."""
    raw = scope.get("raw_path")
    path = raw.decode("latin-1") if isinstance(raw, bytes) else str(scope.get("path", ""))
    return path, bytes(scope.get("query_string") or b"").decode("latin-1")


def _url_secret(scope: Scope) -> bool:
    """A token or a credential parameter in the URL, in any percent-decoded form of its
    path or query (or a URL still changing after :data:`MAX_DECODES` decodings)."""
    path, query = _url_parts(scope)
    decoded = str(scope.get("path", ""))
    for text in (path, decoded, query):
        forms = decoded_forms(text)
        if len(forms) > MAX_DECODES:
            return True
        if any(TOKEN_RE.search(form) for form in forms):
            return True
    for form in decoded_forms(query):
        if any(k.strip().lower() in CREDENTIAL_KEYS for k, _ in parse_qsl(form, True)):
            return True
    return False


def _blank_url(scope: Scope) -> None:
    """Blank the URL's secrets in the request itself, before anything logs it (the access
    log reads it from there): the path each decoded form of which holds a token is given
    with the token blanked, a query that holds a credential is blanked whole."""
    path, _ = _url_parts(scope)
    plain = decoded_forms(path)[-1]
    blanked = redact(plain)
    scope["path"] = blanked
    scope["raw_path"] = quote(blanked, safe="/[]").encode("latin-1")
    scope["query_string"] = REDACTED.encode("latin-1") if scope.get("query_string") else b""


class HostCheck:
    """421 for a Host this server does not answer to, 403 for a foreign browser Origin
    (another scheme, host or port than the request's own, unless allowed), 400 (and the
    URL blanked) for a credential in the URL. ``hosts``: from :func:`allowed_hosts`;
    ``origins``: origins also allowed (``--cors-origin``), compared as scheme, host, port."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str], origins: Iterable[str] = ()):
        self.app = app
        self.hosts = hosts
        self.origins = frozenset(o for o in map(origin_of, origins) if o is not None)

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
                has_body(scope),
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
                has_body(scope),
            )
            return
        origin = headers.get(b"origin")
        if origin is not None and not self._origin_ok(origin.decode("latin-1"), scope, headers):
            await send_json(
                send,
                403,
                {
                    "detail": "requests from this browser origin are refused (start the "
                    "server with --cors-origin URL to allow one)"
                },
                has_body(scope),
            )
            return
        await self.app(scope, receive, send)

    def _origin_ok(self, origin: str, scope: Scope, headers: dict[bytes, bytes]) -> bool:
        """An origin allowed by name (``--cors-origin``), or this server's own (a page it
        served, /docs): the same scheme, host and port as the request's own origin (its
        scheme and ``Host``, which the Host check has already allowed). A page on another
        port of the same machine is another origin."""
        given = origin_of(origin)
        if given is None:
            return False  # "null" (a sandboxed page, a file) and anything odd
        if given in self.origins:
            return True
        scheme = str(scope.get("scheme") or "http")
        own = origin_of(f"{scheme}://{headers.get(b'host', b'').decode('latin-1').strip()}")
        return own is not None and given == own


def origin_of(url: str) -> tuple[str, str, int] | None:
    """An origin (or a URL) as (scheme, host, port), the port filled in from the scheme;
    None for one that is not http(s) with a host (``null``, ``file://``, garbage)."""
    try:
        parts = urlsplit(url.strip().rstrip("/").lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    if parts.path or parts.query or parts.fragment or parts.username or parts.password:
        return None
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname, port if port is not None else default


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


def bounded(service: Service, app: ASGIApp, upload_suffix: str = "") -> ASGIApp:
    """The body's bounds (:class:`~cogmem.service.limits.BodyLimit`) around ``app``: put
    the token check around this, so that no body is read before it."""
    limits = service.limits
    return BodyLimit(
        app,
        limit=limits.max_body_bytes,
        upload_limit=limits.max_upload_bytes if upload_suffix else None,
        upload_suffix=upload_suffix,
        read_timeout_s=limits.read_timeout_s,
    )


def wrap(
    app: ASGIApp,
    hosts: frozenset[str] | None,
    origins: Sequence[str],
) -> ASGIApp:
    """The guards both servers share, outermost first: the last resort for a bug, Host
    and Origin (and credentials in the URL), CORS; ``app`` is the token check (around
    :func:`bounded`)."""
    return CatchAll(
        HostCheck(
            cors(app, origins),
            hosts if hosts is not None else allowed_hosts("127.0.0.1"),
            origins,
        )
    )
