"""`cogmem serve` as a subprocess, as a user starts it: its base URL and its log file."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cogmem.config import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_environ(settings: Settings, **extra: str) -> dict[str, str]:
    environ = {**os.environ, "NEO4J_URI": settings.neo4j_uri, "PYTHONUNBUFFERED": "1"}
    if settings.neo4j_password:
        environ["NEO4J_PASSWORD"] = settings.neo4j_password
    environ.update(extra)
    return environ


@dataclass
class Live:
    base: str
    port: int
    log: Path
    proc: subprocess.Popen[bytes]

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def kill(self) -> None:
        """kill -9: no shutdown, nothing flushed."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


def wait_ready(port: int, proc: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"nothing listens on {port} after {seconds} s")


@contextmanager
def serve(
    settings: Settings, log: Path, *args: str, port: int | None = None, **env: str
) -> Iterator[Live]:
    """``cogmem serve --port P ARGS``; stopped (or killed) at the end; ``log`` gets its
    stdout and stderr (appended: a restarted server adds to the same file)."""
    port = port or free_port()
    with log.open("ab") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cogmem", "serve", "--port", str(port), *args],
            env=server_environ(settings, **env),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_ready(port, proc)
            yield Live(f"http://127.0.0.1:{port}", port, log, proc)
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=30)
