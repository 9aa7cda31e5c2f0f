"""Fast failure and bounds: a Neo4j that goes away is a 503 within ~2 s on every route
(the token check included), a client that sends its request slowly is cut off, and the
bounds are shown in --help. Real Neo4j (behind a proxy the test can cut), real servers."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cogmem.api import Memory
from cogmem.cli import app as cli_app
from cogmem.config import Settings
from cogmem.service.core import Limits, Service
from cogmem.service.http_api import create_app
from cogmem.service.tokens import TokenStore
from cogmem.store import Store
from tests.live_server import serve

pytestmark = pytest.mark.integration
LOCAL = "http://127.0.0.1"


class Cuttable:
    """A TCP proxy to Neo4j's bolt port that the test can cut (every connection closed,
    new ones refused), as a Neo4j that crashed or a network that went away."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = int(self.listener.getsockname()[1])
        self.conns: list[socket.socket] = []
        self.open = True
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.open = False
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() (Linux)
        self.listener.close()
        with self.lock:
            for s in self.conns:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()


@pytest.fixture
def cut_env(neo4j_settings: Settings, store: Store) -> Iterator[dict[str, Any]]:
    host, port = neo4j_settings.neo4j_uri.split("//", 1)[1].rsplit(":", 1)
    proxy = Cuttable((host, int(port)))
    group = f"test-bounds-{uuid.uuid4().hex[:8]}"
    made = TokenStore(store).create(group)
    settings = neo4j_settings.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{proxy.port}"})
    yield {"proxy": proxy, "settings": settings, "group": group, "token": made.secret}
    TokenStore(store).revoke(made.grant.token_id or "")
    while store.write("admin/forget_group", group=group, batch=5000)[0]["deleted"]:
        pass


@pytest.mark.parametrize("auth", [True, False])
def test_neo4j_gone_is_a_503_within_two_seconds_on_every_route(
    cut_env: dict[str, Any], auth: bool
) -> None:
    """On main, once Neo4j had answered, each authenticated request took 30-60 s before
    its 503 (the token check retried for the driver's whole retry window)."""
    group = cut_env["group"]
    headers = {"Authorization": f"Bearer {cut_env['token']}"} if auth else {}
    mem = Memory(cut_env["settings"])
    app = create_app(Service(mem, Limits(timeout_s=60)), auth=auth, default_group=group)
    routes = [
        ("GET", "/v1/groups", None),
        ("POST", f"/v1/groups/{group}/turns", {"speaker": "ann", "text": "hello there"}),
        ("POST", f"/v1/groups/{group}/search", {"query": "hello"}),
        ("POST", f"/v1/groups/{group}/context", {"query": "hello"}),
        ("POST", f"/v1/groups/{group}/ask", {"question": "who said hello?"}),
    ]
    try:
        with TestClient(app, base_url=LOCAL) as client:
            for method, path, body in routes:  # all fine while Neo4j is there
                r = client.request(method, path, json=body, headers=headers)
                assert r.status_code in (200, 201), (path, r.text)
            cut_env["proxy"].cut()
            time.sleep(1.1)  # past the probe interval (a request within it may retry)
            for method, path, body in [("GET", "/healthz", None), *routes]:
                started = time.monotonic()
                r = client.request(method, path, json=body, headers=headers)
                took = time.monotonic() - started
                if path == "/v1/groups" and not auth:
                    assert r.status_code == 200  # needs no database: the server's group
                    continue
                assert r.status_code == 503, (path, r.status_code, r.text)
                assert took < 3.0, (path, took)
                assert "\n" not in r.json()["detail"]
    finally:
        mem.close()


def _slow_client(port: int, payload: bytes, wait_s: float) -> tuple[bytes, float]:
    """Send ``payload``, then nothing; what the server answers and when it closes."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(wait_s)
        s.sendall(payload)
        got = b""
        try:
            while chunk := s.recv(4096):
                got += chunk
        except TimeoutError:
            pass
    return got, time.monotonic() - started


def test_a_slow_request_is_cut_off_and_the_bounds_are_in_help(
    neo4j_settings: Settings, tmp_path: Path
) -> None:
    """On main a request that declared a body and stopped sending held its connection
    90 s and more; headers sent and never finished held it for ever."""
    with serve(neo4j_settings, tmp_path / "serve.log", "--no-auth", "--read-timeout", "2") as live:
        body_then_nothing = (
            b"POST /v1/groups/default/search HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query"'
        )
        got, took = _slow_client(live.port, body_then_nothing, 20)
        assert got.startswith(b"HTTP/1.1 408"), got[:200]
        assert took < 6, took
        got, took = _slow_client(live.port, b"POST /v1/groups HTTP/1.1\r\nHost: 127.0", 20)
        assert took < 6 and b"200" not in got, (took, got[:200])
        assert live.proc.poll() is None  # still serving
        with socket.create_connection(("127.0.0.1", live.port)) as s:
            s.sendall(b"GET /v1/groups HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert s.recv(4096).startswith(b"HTTP/1.1 200")
    shown = " ".join(CliRunner().invoke(cli_app, ["serve", "--help"]).output.split())
    for default in ("[default: 10.0]", "[default: 64]", "[default: 1048576]", "[default: 8]"):
        assert default in shown, default


def test_a_write_in_flight_when_neo4j_goes_is_a_503_within_two_seconds(
    cut_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On main a turn whose write transaction had begun when Neo4j went away waited the
    driver's whole retry window (30 s, then 32 s in all) for its 503; a new request got
    its 503 within 2 s."""
    group = cut_env["group"]
    mem = Memory(cut_env["settings"])
    app = create_app(Service(mem, Limits(timeout_s=60)), auth=False, default_group=group)
    armed = threading.Event()
    transaction = Store.transaction

    def cut_then_write(self: Store, work: Any) -> Any:
        """Neo4j goes away as the turn's write transaction begins (once, when armed)."""
        if armed.is_set():
            armed.clear()
            cut_env["proxy"].cut()
        return transaction(self, work)

    monkeypatch.setattr(Store, "transaction", cut_then_write)
    try:
        with TestClient(app, base_url=LOCAL) as client:
            turn = {"speaker": "ann", "text": "I moved to Lisbon in May."}
            assert client.post(f"/v1/groups/{group}/turns", json=turn).status_code == 201
            armed.set()
            started = time.monotonic()
            body = {"speaker": "ann", "text": "My sister Ines lives in Porto."}
            r = client.post(f"/v1/groups/{group}/turns", json=body)
            took = time.monotonic() - started
        assert not armed.is_set()  # the cut came inside the write
        assert r.status_code == 503, (r.status_code, r.text)
        assert took < 3.0, took
        assert "\n" not in r.json()["detail"]
        print(f"write in flight at the cut: 503 after {took:.2f} s")
    finally:
        mem.close()


def test_a_request_must_arrive_whole_within_the_read_timeout(
    neo4j_settings: Settings, tmp_path: Path
) -> None:
    """On main the read timeout bounded each part of a body, not the request: a body sent
    a byte every second held its connection for as long as the client liked."""
    with serve(neo4j_settings, tmp_path / "serve.log", "--no-auth", "--read-timeout", "2") as live:
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", live.port)) as s:
            s.settimeout(0.5)
            s.sendall(
                b"POST /v1/groups/default/search HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            )
            got = b""
            for _ in range(12):  # a byte every 0.5 s: each part well within 2 s
                try:
                    s.sendall(b" ")
                except OSError:
                    break
                with contextlib.suppress(TimeoutError):
                    got += s.recv(4096)  # waits 0.5 s
                if got:
                    break
            took = time.monotonic() - started
        assert got.startswith(b"HTTP/1.1 408"), got[:200]
        assert took < 4, took
    shown = " ".join(CliRunner().invoke(cli_app, ["serve", "--help"]).output.split())
    assert "--max-unauthenticated" in shown and "[default: 32]" in shown
