"""Running an ASGI app with uvicorn, bounded: a cap on open connections, a cap on the
connections that have not sent a whole request yet (and so no token), a deadline for a
whole request (its headers and its body), the body's own limit in
:class:`~cogmem.service.limits.BodyLimit`, and logs through
:class:`~cogmem.service.guards.Redact`."""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol

from cogmem.service.limits import DEADLINE_KEY


class BoundedH11(H11Protocol):
    """uvicorn's h11 protocol, bounded:

    - a request (headers and body) must be in within ``header_timeout_s`` of the
      connection's opening (or of its previous response): a connection whose headers are
      not in by then is closed, and the deadline goes to the app in the scope
      (:data:`DEADLINE_KEY`) for the body (:class:`~cogmem.service.limits.BodyLimit`: 408);
    - at most ``max_pending`` connections wait for a request's headers (no token seen yet,
      idle keep-alive ones included): one more closes the one waiting longest, so slow or
      silent clients cannot take the slots that token holders need."""

    header_timeout_s = 10.0
    max_pending = 32
    pending: ClassVar[dict[BoundedH11, None]] = {}  # oldest first; one dict per server

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._started = time.monotonic()
        self._inner_app = self.app
        self.app = self._stamped
        self._wait()

    async def _stamped(self, scope: Any, receive: Any, send: Any) -> None:
        scope[DEADLINE_KEY] = self._started + self.header_timeout_s
        await self._inner_app(scope, receive, send)

    def _wait(self) -> None:
        """Waiting for a request: the deadline starts now, and this connection is pending."""
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._started = time.monotonic()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)
        pending = type(self).pending
        pending[self] = None
        while len(pending) > self.max_pending:
            oldest = next(iter(pending))
            del pending[oldest]
            oldest._close_if_idle()

    def _serving(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _close_if_idle(self) -> None:
        if not self._serving() and not self.transport.is_closing():
            self.transport.close()  # no request came in whole: nothing to answer

    def _headers_late(self) -> None:
        type(self).pending.pop(self, None)
        self._close_if_idle()

    def handle_events(self) -> None:
        super().handle_events()
        if self._serving():  # a request's headers are in: no longer pending
            type(self).pending.pop(self, None)

    def on_response_complete(self) -> None:
        if not self.transport.is_closing():
            self._wait()  # before a pipelined request is read (super() reads it)
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        type(self).pending.pop(self, None)
        super().connection_lost(exc)


def check_port(host: str, port: int) -> None:
    """:class:`~cogmem.config.ConfigError` (one line, exit 1) for a port that is not one
    or is taken, before uvicorn would print a traceback or exit 3."""
    import socket

    from cogmem.config import ConfigError

    if not 1 <= port <= 65535:
        raise ConfigError(f"--port {port} is not a TCP port (1-65535)")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as exc:
            raise ConfigError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc} (another server "
                "there? pick another --port)"
            ) from None


def check_caps(max_connections: int, max_pending: int) -> None:
    """:class:`~cogmem.config.ConfigError` unless connections without a request yet are
    capped below all connections (token holders need the rest)."""
    from cogmem.config import ConfigError

    if not 1 <= max_pending < max_connections:
        raise ConfigError(
            f"--max-unauthenticated {max_pending} must be at least 1 and below "
            f"--max-connections {max_connections} (token holders need the rest)"
        )


def run(
    app: Any,
    host: str,
    port: int,
    max_connections: int,
    header_timeout_s: float,
    max_pending: int = 32,
) -> None:
    import uvicorn

    from cogmem.service.guards import log_config, redact_root_logs

    check_port(host, port)
    check_caps(max_connections, max_pending)
    protocol = type(
        "Bounded",
        (BoundedH11,),
        {"header_timeout_s": header_timeout_s, "max_pending": max_pending, "pending": {}},
    )
    redact_root_logs()
    # one process, one event loop; blocking work goes to the bounded pool of workers
    uvicorn.run(
        app,
        host=host,
        port=port,
        http=protocol,
        log_level="info",
        log_config=log_config(),
        limit_concurrency=max_connections,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,
    )
