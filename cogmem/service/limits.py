"""ASGI guards shared by both HTTP transports: request size limits, bearer-token auth, and
the rule that a server without auth listens on loopback only."""

from __future__ import annotations

import ipaddress
import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio

from cogmem.config import ConfigError
from cogmem.service.policy import bug
from cogmem.service.tokens import Grant, TokenStore, bearer

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("cogmem.service")
GRANT_KEY = "cogmem.grant"
LOGGED_KEY = "cogmem.logged"  # set once a bug of this request is logged (with its id)
DEADLINE_KEY = "cogmem.deadline"  # time.monotonic() by which the whole request must be in


class BindRefused(ConfigError):
    """A server without auth was asked to listen beyond loopback."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, auth: bool) -> None:
    if not auth and not is_loopback(host):
        raise BindRefused(
            f"refusing to listen on {host} without authentication: bind to 127.0.0.1, or "
            "create a token (`cogmem token create --group G`) and leave auth on"
        )


def has_body(scope: Scope) -> bool:
    """Whether the request says a body follows (answered before it is read, the connection
    is closed after the answer: the body is never waited for)."""
    headers = dict(scope.get("headers") or [])
    length = headers.get(b"content-length", b"").strip()
    return (length.isdigit() and int(length) > 0) or b"transfer-encoding" in headers


async def send_json(
    send: Send,
    status: int,
    body: dict[str, Any],
    close: bool = False,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    data = json.dumps(body).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    headers += extra or []
    if close:
        headers.append((b"connection", b"close"))
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


class CatchAll:
    """The outermost guard: an exception no one handled is a server bug, logged once with
    its traceback and a request id, answered 500 with that id (never the error's text)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:
            if scope.get(LOGGED_KEY):
                return
            rid, message = bug(f"{scope.get('method')} {scope.get('path')}", exc)
            if not started:
                await send_json(send, 500, {"detail": message, "request_id": rid})


class BodyLimit:
    """413 for a request body over ``limit`` bytes (``upload_limit`` on upload paths), by
    its Content-Length or, when streamed without one, as soon as it passes the limit;
    408 when the whole body is not in by the request's deadline: the server's
    (:data:`DEADLINE_KEY`, counted from the connection's opening or its previous
    response, headers included), else ``read_timeout_s`` from here. A client that declares
    a body and sends it a byte at a time holds its connection that long, no more. The
    body is read here (behind the token check), then handed to the app."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        upload_limit: int | None = None,
        upload_suffix: str = "",
        read_timeout_s: float = 10.0,
    ):
        self.app = app
        self.limit = limit
        self.upload_limit = upload_limit or limit
        self.upload_suffix = upload_suffix
        self.read_timeout_s = read_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        upload = bool(self.upload_suffix) and path.endswith(self.upload_suffix)
        limit = self.upload_limit if upload else self.limit
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        too_large = {"detail": f"request body over {limit} bytes", "limit": limit}
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await send_json(send, 413, too_large, close=True)
            return
        deadline = scope.get(DEADLINE_KEY)
        if not isinstance(deadline, float):
            deadline = time.monotonic() + self.read_timeout_s
        body = bytearray()
        while True:
            try:
                with anyio.fail_after(max(deadline - time.monotonic(), 0.0)):
                    message = await receive()
            except TimeoutError:
                detail = f"request not received whole within {self.read_timeout_s:g} s"
                await send_json(send, 408, {"detail": detail}, close=True)
                return
            if message["type"] != "http.request":
                return  # the client went away: nothing to answer
            body += message.get("body", b"")
            if len(body) > limit:
                await send_json(send, 413, too_large, close=True)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class BearerAuth:
    """Puts the caller's :class:`Grant` in ``scope["cogmem.grant"]``: from the bearer token,
    or ``default`` when auth is off. Paths in ``public`` need no token. A missing or unknown
    token gets 401; a database that cannot check it gets 503. The token is never logged.
    It runs before the body is read (:class:`BodyLimit` sits inside it): a refused request
    is answered at once and its connection closed, its body never waited for."""

    def __init__(
        self,
        app: ASGIApp,
        tokens: TokenStore | None,
        default: Grant | None = None,
        public: tuple[str, ...] = (),
        check: Callable[[Callable[[], Grant | None]], Awaitable[Grant | None]] | None = None,
    ):
        if tokens is None and default is None:
            raise ValueError("BearerAuth needs a token store or a default grant")
        self.app = app
        self.tokens = tokens
        self.default = default
        self.public = public
        self.check = check

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or str(scope.get("path", "")) in self.public:
            await self.app(scope, receive, send)
            return
        if self.tokens is None:
            scope[GRANT_KEY] = self.default
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        raw = headers.get(b"authorization")
        secret = bearer(raw.decode("latin-1") if raw else None)
        if secret is None:
            await send_json(send, 401, {"detail": "missing bearer token"}, has_body(scope))
            return
        tokens = self.tokens
        try:
            if self.check is not None:
                grant = await self.check(lambda: tokens.verify(secret))
            else:
                grant = tokens.verify(secret)
        except Exception as exc:  # Unavailable, StoreError: the reason, never the token
            reason = " ".join(f"cannot check the token: {exc}".split())
            await send_json(send, 503, {"detail": reason}, has_body(scope))
            return
        if grant is None:
            await send_json(send, 401, {"detail": "unknown or revoked token"}, has_body(scope))
            return
        scope[GRANT_KEY] = grant
        await self.app(scope, receive, send)
