"""Running an ASGI app with uvicorn, bounded: a cap on open connections, a time limit on
a request's headers (a client that opens a connection and sends its headers a byte at a
time is cut off), the body's own limit in :class:`~cogmem.service.limits.BodyLimit`, and
logs through :class:`~cogmem.service.guards.Redact`."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


class BoundedH11(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers are not all in
    within ``header_timeout_s`` of its opening (or of its previous response)."""

    header_timeout_s = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._arm()

    def _arm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _headers_late(self) -> None:
        serving = self.cycle is not None and not self.cycle.response_complete
        if not serving and not self.transport.is_closing():
            self.transport.close()  # no request came in whole: nothing to answer

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
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


def run(app: Any, host: str, port: int, max_connections: int, header_timeout_s: float) -> None:
    import uvicorn

    from cogmem.service.guards import log_config, redact_root_logs

    check_port(host, port)
    protocol = type("Bounded", (BoundedH11,), {"header_timeout_s": header_timeout_s})
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
