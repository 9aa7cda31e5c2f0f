"""The Neo4j Browser kit end to end: a throwaway server with auth (its neo4j.conf applies
cogmem's style on connect), a tiny conversation ingested through ``Memory``, and the real
Neo4j Browser driven in headless Chromium over the DevTools protocol — log in with the
generated password through the URL that ``cogmem.browser.launch`` builds, check the style
Browser holds and the colours it draws, run the query the URL put in the editor, and
screenshot the styled graph (``docs/browser.png``; also ``$COGMEM_TEST_ARTIFACTS``)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from cogmem import browser as kit
from cogmem.api import Memory
from cogmem.config import load_settings
from cogmem.models import Conversation, Turn
from cogmem.store import Store
from tests.servers import throwaway_server

pytestmark = [pytest.mark.integration, pytest.mark.slow]

GROUP = "browser-demo"
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "browser.png"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--window-size=1400,1000",
)
CHAT = (  # (speaker, text, session): an opinion that changes, a decision, a todo, a reminder
    (
        "Priya",
        "I met Marco at the climbing gym last week. Honestly, I think Marco is unreliable.",
        1,
    ),
    ("Tomas", "Why? He seemed nice at the bakery opening.", 1),
    ("Priya", "He was late three times. We decided to book the Alps trip for August anyway.", 1),
    ("Tomas", "I need to renew my passport before the trip.", 2),
    ("Priya", "Remind me to buy new climbing shoes on Friday.", 2),
    ("Priya", "Marco fixed my bike yesterday. I think Marco is actually very reliable.", 2),
)


# -- a minimal DevTools-protocol client: one websocket, stdlib only -------------------------
class CDP:
    """JSON-RPC over a websocket to one Chromium page (RFC 6455, client frames masked)."""

    def __init__(self, ws_url: str, timeout_s: float = 30.0) -> None:
        parts = urlsplit(ws_url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        self.sock = socket.create_connection((host, port), timeout=timeout_s)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {parts.path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("DevTools closed the websocket during the handshake")
            head += chunk
        status, _, self.buf = head.partition(b"\r\n\r\n")
        assert b" 101 " in status.split(b"\r\n")[0], status
        self.next_id = 0

    def _read(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("DevTools closed the websocket")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send(self, payload: bytes, opcode: int = 0x1) -> None:
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + body)

    def _message(self) -> bytes:
        data = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 0x9:  # ping
                self._send(payload, 0xA)
                continue
            if opcode == 0x8:
                raise ConnectionError("DevTools closed the websocket")
            data += payload
            if b0 & 0x80:
                return data

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}).encode())
        while True:
            msg = json.loads(self._message())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                result: dict[str, Any] = msg.get("result", {})
                return result

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float = 30.0, what: str = "") -> Any:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.25)
        text = self.evaluate("document.body ? document.body.innerText.slice(0, 1500) : ''")
        raise AssertionError(f"timed out waiting for {what or expression}; page says:\n{text}")

    def click(self, selector: str) -> None:
        box = self.evaluate(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                type=kind,
                x=box[0],
                y=box[1],
                button="left",
                clickCount=1,
            )

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[CDP]:
    exe = shutil.which("chromium")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Debian's chromium (see .ci/run)")
        pytest.skip("Debian chromium is not installed here (apt-get install chromium)")
    profile = tmp_path / "chromium-profile"
    profile.mkdir()
    proc = subprocess.Popen(
        [
            exe,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.is_file() and port_file.read_text().strip()):
            assert proc.poll() is None, f"chromium exited with {proc.returncode}"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            pages = [t for t in json.load(resp) if t["type"] == "page"]
        cdp = CDP(pages[0]["webSocketDebuggerUrl"])
        try:
            yield cdp
        finally:
            cdp.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A throwaway server with auth, holding one small, consolidated conversation."""
    with throwaway_server(tmp_path_factory, "browser-instance", auth=True) as (inst, state, pw):
        assert pw
        settings = load_settings(
            {"neo4j_uri": state.bolt_uri, "neo4j_password": pw, "group": GROUP}
        )
        start = datetime(2024, 5, 6, 18, 0, tzinfo=UTC)
        turns = [
            Turn(
                conversation="alps",
                session=str(session),
                session_index=session,
                index=i,
                source_id=f"D{session}:{i + 1}",
                speaker=speaker,
                text=text,
                at=start + timedelta(days=20 * (session - 1), minutes=i),
            )
            for i, (speaker, text, session) in enumerate(CHAT)
        ]
        conversation = Conversation(
            id="alps", speakers=["Priya", "Tomas"], turns=turns, source_format="test"
        )
        with Memory(settings) as mem:
            mem.ingest_conversations([conversation])
            mem.consolidate()  # claim reconciliation: the old opinion becomes SUPERSEDED
        yield {
            "settings": settings,
            "password": pw,
            "state": state,
            "conf": inst / "conf" / "neo4j.conf",
        }


def test_the_kit_queries_answer_on_the_conversation_and_the_conf_carries_the_style(
    server: dict[str, Any],
) -> None:
    values = {"group": GROUP, "person": "Priya", "turn": "D1:1", "fact": "passport", "about": None}
    rows = {}
    with Store(server["settings"]) as store:
        for query in kit.saved_queries():
            store.explain(query.statement, {})
            rows[query.name] = store.read(query.statement, **{p: values[p] for p in query.params})
    for name in ("person_claims", "claim_history", "turn_records", "group_timeline"):
        assert rows[name], f"{name} found nothing"
    history = rows["claim_history"]
    assert [r["status"] for r in history] == ["SUPERSEDED", "CURRENT"]  # oldest first
    assert history[1]["supersedes"] == [history[0]["claim"]]
    assert len(rows["group_timeline"]) == len(CHAT)
    conf = server["conf"].read_text(encoding="utf-8").splitlines()
    assert f"browser.post_connect_cmd={kit.post_connect_command()}" in conf


def _log_in(cdp: CDP, password: str) -> None:
    """Type the password into the pre-filled connect form and connect. Browser may re-render
    the form once its discovery request returns, so a lost password is typed again."""
    for _ in range(3):
        cdp.evaluate("document.querySelector('[data-testid=password]').focus()")
        if not cdp.evaluate("document.querySelector('[data-testid=password]').value"):
            cdp.call("Input.insertText", text=password)
        cdp.click("[data-testid=connect]")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if cdp.evaluate("document.body.innerText.includes('You are connected as user')"):
                return
            time.sleep(0.25)
        if not cdp.evaluate("!!document.querySelector('[data-testid=password]')"):
            break
    raise AssertionError("Browser did not log in: " + cdp.evaluate("document.body.innerText"))


def _graph_fills(cdp: CDP) -> list[str]:
    fills: list[str] = cdp.evaluate(
        "[...document.querySelectorAll('g.node circle.b-outline')].map(e => e.getAttribute('fill'))"
    )
    return fills


def test_browser_logs_in_applies_the_style_and_draws_a_styled_graph(
    server: dict[str, Any], chromium: CDP
) -> None:
    state = server["state"]
    launch = kit.launch(server["settings"], http_url=state.browser_url, conf=server["conf"])
    assert launch.style_on_connect
    assert server["password"] not in launch.url + "\n".join(launch.lines())
    cdp = chromium
    cdp.call("Page.enable")
    cdp.call("Runtime.enable")
    cdp.call("Page.navigate", url=launch.url)

    # The connect form comes pre-filled from ?dbms=…&db=…: this server's Bolt URL and user.
    cdp.wait_for("!!document.querySelector('[data-testid=password]')", 60, "the connect form")
    time.sleep(1)
    form = cdp.evaluate(
        "({user: document.querySelector('[data-testid=username]').value,"
        " url: document.querySelector('[data-testid=boltaddress]').value})"
    )
    assert form == {"user": "neo4j", "url": f"127.0.0.1:{state.bolt_port}"}
    _log_in(cdp, server["password"])

    # browser.post_connect_cmd ran `:style {json}`: Browser now holds exactly cogmem's style.
    deadline = time.monotonic() + 30
    held = None
    while time.monotonic() < deadline:
        held = json.loads(cdp.evaluate("localStorage.getItem('neo4j.grass') || 'null'"))
        if held == kit.style():
            break
        time.sleep(0.25)
    assert held == kit.style()

    # The URL put `:param group => "…"` in the editor: run it, then a saved query.
    editor = cdp.evaluate(
        "document.querySelector('[data-testid=activeEditor]').innerText.replace(/\\u00a0/g, ' ')"
    )
    assert launch.editor in editor
    cdp.click("[data-testid=editor-Run]")
    shown = json.dumps(f'"group": "{GROUP}"')  # the :param frame shows the parameters
    cdp.wait_for(f"document.body.innerText.includes({shown})", 30, "the group parameter")
    cdp.evaluate("document.querySelector('[data-testid=activeEditor] textarea').focus()")
    cdp.call("Input.insertText", text=kit.saved_query("group_timeline").text)
    cdp.click("[data-testid=editor-Run]")
    cdp.wait_for(
        "document.querySelectorAll('g.node circle.b-outline').length >= 25", 60, "the graph"
    )
    cdp.click("[data-testid=frame] button[title=Fullscreen]")
    time.sleep(2)
    cdp.click("[aria-label=zoom-to-fit]")
    time.sleep(2)  # the force layout settles

    colour = {
        selector.removeprefix("node."): props["color"].lower()
        for selector, props in kit.style().items()
        if selector.startswith("node.") and "color" in props
    }
    drawn = {fill.lower() for fill in _graph_fills(cdp)}
    for label in ("Conversation", "Session", "Turn", "Person", "Concept", "Claim", "Event"):
        assert colour[label] in drawn, f"no {label} drawn in {colour[label]}: {sorted(drawn)}"
    assert drawn <= set(colour.values()), f"nodes drawn outside the style: {sorted(drawn)}"
    captions = cdp.evaluate(
        "[...document.querySelectorAll('g.node text')].map(e => e.textContent).join(' ')"
    )
    for caption in ("Priya", "D1:1", "session 2", "CURRENT", "SUPERSED"):
        assert caption in captions, f"no caption {caption!r} in: {captions}"

    shot = base64.b64decode(cdp.call("Page.captureScreenshot", format="png")["data"])
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 50_000
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.write_bytes(shot)
    artifacts = os.environ.get("COGMEM_TEST_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        (Path(artifacts) / "browser.png").write_bytes(shot)
