"""The local-install route end to end, through the CLI: start with auth, connect, open
Neo4j Browser in a real headless Chromium, stop."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cogmem.config import load_settings, read_config_file
from cogmem.server import local as localserver
from cogmem.store import Store, Unreachable

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def cogmem(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cogmem.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    inst = tmp_path_factory.mktemp("auth-instance")
    config = tmp_path_factory.mktemp("cfg") / "config.toml"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["COGMEM_CONFIG"] = str(config)
    bolt, http = localserver.free_port(), localserver.free_port()
    proc = cogmem(
        "neo4j",
        "start",
        "--dir",
        str(inst),
        "--bolt-port",
        str(bolt),
        "--http-port",
        str(http),
        "--heap",
        "512m",
        "--pagecache",
        "128m",
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    info = {
        "inst": inst,
        "config": config,
        "env": env,
        "bolt": bolt,
        "http": http,
        "start_output": proc.stdout,
    }
    try:
        yield info
    finally:
        cogmem("neo4j", "stop", "--dir", str(inst), env=env)


def test_start_reports_pid_uris_log_and_a_password_shown_once(server: dict) -> None:
    out = server["start_output"]
    state = localserver.read_state(server["inst"])
    assert state is not None
    assert f"pid      {state.pid}" in out
    assert f"bolt://127.0.0.1:{server['bolt']}" in out
    assert f"http://127.0.0.1:{server['http']}/browser/" in out
    assert state.log_path in out
    saved = read_config_file(server["config"])
    assert saved["neo4j_uri"] == f"bolt://127.0.0.1:{server['bolt']}"
    assert saved["neo4j_password"] in out  # shown once, at set-up
    assert stat.S_IMODE(server["config"].stat().st_mode) == 0o600
    status = cogmem("neo4j", "status", "--dir", str(server["inst"]), "--json", env=server["env"])
    assert status.returncode == 0
    assert saved["neo4j_password"] not in status.stdout  # never printed again
    assert json.loads(status.stdout)["pid"] == state.pid
    shown = cogmem("config", env=server["env"])
    assert saved["neo4j_password"] not in shown.stdout


def test_auth_is_on_and_the_saved_password_works(server: dict) -> None:
    saved = read_config_file(server["config"])
    good = load_settings(
        {"neo4j_uri": saved["neo4j_uri"], "neo4j_password": saved["neo4j_password"]}
    )
    with Store(good) as store:
        store.ping()
    bad = load_settings({"neo4j_uri": saved["neo4j_uri"], "neo4j_password": "wrong"})
    with Store(bad) as store, pytest.raises(Exception, match="credentials"):
        store.ping()


def test_starting_twice_is_refused_with_the_pid(server: dict) -> None:
    proc = cogmem(
        "neo4j",
        "start",
        "--dir",
        str(server["inst"]),
        "--bolt-port",
        str(localserver.free_port()),
        "--http-port",
        str(localserver.free_port()),
        env=server["env"],
    )
    assert proc.returncode == 1
    assert "already running" in proc.stderr and "pid" in proc.stderr


def test_neo4j_browser_loads_in_headless_chromium(server: dict, tmp_path: Path) -> None:
    if shutil.which("chromium") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Debian's chromium (see .ci/run)")
        pytest.skip("Debian chromium is not installed here (apt-get install chromium)")
    url = f"http://127.0.0.1:{server['http']}/browser/"
    shot = tmp_path / "browser.png"
    common = [
        *CHROMIUM_FLAGS,
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,900",
        "--virtual-time-budget=20000",
    ]
    subprocess.run(
        ["chromium", *common, f"--screenshot={shot}", url],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert shot.is_file()
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) > 20_000  # a rendered app, not a blank page
    dom = subprocess.run(
        ["chromium", *common, "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    assert "Connect to Neo4j" in dom  # the Browser app rendered its connect form
    assert f"127.0.0.1:{server['bolt']}" in dom  # and it points at this server's Bolt port
    artifacts = os.environ.get("COGMEM_TEST_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(artifacts) / "neo4j-browser.png")


def test_stop_then_status_says_not_running_and_commands_name_the_uri(server: dict) -> None:
    saved = read_config_file(server["config"])
    proc = cogmem("neo4j", "stop", "--dir", str(server["inst"]), env=server["env"])
    assert proc.returncode == 0 and "Stopped" in proc.stdout
    status = cogmem("neo4j", "status", "--dir", str(server["inst"]), env=server["env"])
    assert status.returncode == 3
    settings = load_settings({"neo4j_uri": saved["neo4j_uri"], "neo4j_password": "x"})
    with Store(settings) as store, pytest.raises(Unreachable) as info:
        store.ping()
    assert saved["neo4j_uri"] in str(info.value)
    assert "cogmem neo4j start" in str(info.value)
