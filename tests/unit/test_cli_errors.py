"""The CLI's errors, without a server: bad files are refused before any connection, with a
message that names the file and the place; a server that is not running is named with
what to do; never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cogmem.cli import app
from cogmem.server.local import free_port

pytestmark = pytest.mark.unit

GOOD_LINE = {"conversation": "c", "speaker": "ann", "text": "hello"}


@pytest.fixture
def nowhere(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """NEO4J_URI pointing at a port where nothing listens."""
    uri = f"bolt://127.0.0.1:{free_port()}"
    monkeypatch.setenv("NEO4J_URI", uri)
    for name in ("NEO4J_PASSWORD", "COGMEM_GROUP", "COGMEM_LLM"):
        monkeypatch.delenv(name, raising=False)
    yield uri


def invoke(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input)


def jsonl(*rows: object) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows).encode()


BAD_FILES: dict[str, tuple[str, bytes, list[str], str]] = {
    # id: (file name, content, extra args, the place the message must name)
    "malformed-json": ("conv.json", b'[{"sample_id": "x", "conversation": {', [], "line 1"),
    "malformed-jsonl": ("chat.jsonl", jsonl(GOOD_LINE, '{"conversation": "c", '), [], "line 2"),
    "wrong-type": (
        "chat.jsonl",
        jsonl(GOOD_LINE, {"conversation": "c", "speaker": "bob", "text": 42}),
        [],
        "line 2",
    ),
    "missing-field": (
        "conv.json",
        json.dumps(
            [
                {
                    "sample_id": "s",
                    "conversation": {
                        "speaker_a": "A",
                        "speaker_b": "B",
                        "session_1": [{"speaker": "A", "dia_id": "D1:1"}],
                    },
                }
            ]
        ).encode(),
        [],
        "$[0].conversation.session_1[0]",
    ),
    "binary": ("chat.jsonl", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", [], "byte 8"),
    "empty": ("chat.jsonl", b"", [], "empty"),
    "unknown-format": ("chat.jsonl", jsonl(GOOD_LINE), ["--format", "xml"], "unknown format"),
    "forced-wrong-format": ("chat.jsonl", jsonl(GOOD_LINE), ["--format", "locomo"], "$"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_files_are_refused_before_any_connection(
    case: str, tmp_path: Path, nowhere: str
) -> None:
    name, content, extra, place = BAD_FILES[case]
    path = tmp_path / name
    path.write_bytes(content)
    result = invoke("ingest", str(path), *extra)
    assert result.exit_code == 1
    message = " ".join(result.stderr.split())
    assert message.startswith("error:"), result.output
    assert str(path) in message and place in message
    assert "not reachable" not in message  # rejected before the database was asked
    assert "Traceback" not in result.output and not isinstance(result.exception, Exception)


def test_missing_file_is_named(tmp_path: Path, nowhere: str) -> None:
    result = invoke("ingest", str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 1
    assert "nope.jsonl" in result.stderr and "no such file" in result.stderr


def test_error_text_with_brackets_is_printed_verbatim(tmp_path: Path, nowhere: str) -> None:
    """Messages quote the file's own text, which may look like Rich markup ("[/]").

    Needs the escape() fix in cogmem/cli.py (friendly, ingest)."""
    path = tmp_path / "chat.jsonl"
    path.write_bytes(jsonl({"conversation": "c", "speaker": "a", "text": "hi", "timestamp": "[/]"}))
    result = invoke("ingest", str(path))
    assert result.exit_code == 1
    assert "Traceback" not in result.output and not isinstance(result.exception, Exception)
    assert "[/]" in result.stderr and str(path) in " ".join(result.stderr.split())


# -- import files are validated before anything is written ------------------------------


def export_doc(**changes: Any) -> dict[str, Any]:
    node = {
        "id": "n1",
        "labels": ["Turn"],
        "properties": {"group_id": "g", "text": "hi", "at": "2023-05-08T13:56:00+00:00"},
        "temporal": {"at": "datetime"},
        "embedded": True,
        "embedding": [0.1] * 4,
    }
    doc: dict[str, Any] = {
        "format": "cogmem-export",
        "version": 1,
        "group": "g",
        "exported_at": "2024-01-01T00:00:00+00:00",
        "embedder": {"name": "minilm", "dimension": 4},
        "embeddings": True,
        "nodes": [node, dict(node, id="n2")],
        "relationships": [{"type": "NEXT", "src": "n1", "dst": "n2", "properties": {}}],
    }
    doc.update(changes)
    return doc


def _node(**changes: Any) -> list[dict[str, Any]]:
    nodes = export_doc()["nodes"]
    nodes[1] = dict(nodes[1], **changes)
    return nodes


BAD_EXPORTS: dict[str, tuple[Any, str]] = {
    "not-json": ("{nope", "line 1, column 2"),
    "not-an-export": ({"nodes": []}, "not a cogmem export"),
    "future-version": (export_doc(version=2), "version 2 is not supported"),
    "unknown-label": (export_doc(nodes=_node(labels=["Turn", "Admin"])), "$.nodes[1].labels[1]"),
    "two-primary-labels": (export_doc(nodes=_node(labels=["Turn", "Memory"])), "exactly one"),
    "unknown-relationship": (
        export_doc(relationships=[{"type": "OWNS", "src": "n1", "dst": "n2"}]),
        "$.relationships[0].type",
    ),
    "dangling-relationship": (
        export_doc(relationships=[{"type": "NEXT", "src": "n1", "dst": "n9"}]),
        "no node with id 'n9'",
    ),
    "duplicate-id": (export_doc(nodes=_node(id="n1")), "duplicate id 'n1'"),
    "other-group": (
        export_doc(nodes=_node(properties={"group_id": "h", "text": "x"}, temporal={})),
        "is not the file's group",
    ),
    "short-vector": (export_doc(nodes=_node(embedding=[0.1] * 3)), "3 dimensions"),
    "nested-property": (
        export_doc(nodes=_node(properties={"group_id": "g", "x": {"a": 1}}, temporal={})),
        "$.nodes[1].properties.x",
    ),
    "bad-datetime": (
        export_doc(nodes=_node(properties={"group_id": "g", "at": "yesterday"})),
        "$.nodes[1]",
    ),
}


@pytest.mark.parametrize("case", list(BAD_EXPORTS))
def test_invalid_export_files_are_refused_with_the_place(
    case: str, tmp_path: Path, nowhere: str
) -> None:
    doc, place = BAD_EXPORTS[case]
    path = tmp_path / "export.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    result = invoke("import", str(path), "--group", "new")
    assert result.exit_code == 1, result.output
    message = " ".join(result.stderr.split())
    assert message.startswith("error:") and str(path) in message and place in message, message
    assert "not reachable" not in message


def test_vectors_of_another_embedder_are_refused_before_connecting(
    tmp_path: Path, nowhere: str
) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export_doc()), encoding="utf-8")  # 4-d "minilm" vectors
    result = invoke("import", str(path))
    assert result.exit_code == 1
    message = " ".join(result.stderr.split())
    assert str(path) in message and "4-dimensional" in message and "384" in message
    assert "--reembed" in message and "not reachable" not in message


# -- Neo4j is not running ---------------------------------------------------------------


def _valid_inputs(tmp_path: Path) -> tuple[Path, Path]:
    chat = tmp_path / "chat.jsonl"
    chat.write_bytes(jsonl(GOOD_LINE))
    export = tmp_path / "export.json"
    doc = export_doc(embeddings=False, embedder={"name": "minilm", "dimension": 384})
    for node in doc["nodes"]:
        node["embedding"] = None
    export.write_text(json.dumps(doc), encoding="utf-8")
    return chat, export


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    chat, export = _valid_inputs(tmp_path)
    return {
        "init": ["init"],
        "ingest": ["ingest", str(chat)],
        "search": ["search", "who said hello?"],
        "context": ["context", "who said hello?"],
        "ask": ["ask", "who said hello?"],
        "consolidate": ["consolidate", "--group", "g"],
        "forget": ["forget", "--group", "g", "--yes"],
        "export": ["export", "--group", "g"],
        "import": ["import", str(export)],
    }


def _run(args: list[str], uri: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "COGMEM_"))}
    env["COGMEM_CONFIG"] = os.environ.get("COGMEM_CONFIG", "/nonexistent/cogmem.toml")
    return subprocess.run(
        [sys.executable, "-m", "cogmem.cli", "--uri", uri, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )


@pytest.fixture(scope="module")
def unreachable_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every command that needs the database, run at once against a port with no server."""
    uri = f"bolt://127.0.0.1:{free_port()}"
    commands = _commands(tmp_path_factory.mktemp("inputs"))
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        futures = {name: pool.submit(_run, args, uri) for name, args in commands.items()}
        return {"uri": uri, **{name: f.result() for name, f in futures.items()}}


@pytest.mark.parametrize(
    "command",
    ["init", "ingest", "search", "context", "ask", "consolidate", "forget", "export", "import"],
)
def test_commands_say_neo4j_is_not_running(unreachable_runs: dict[str, Any], command: str) -> None:
    proc = unreachable_runs[command]
    assert proc.returncode == 1, proc.stdout + proc.stderr
    message = " ".join(proc.stderr.split())
    assert "error: Neo4j is not reachable at " + unreachable_runs["uri"] in message
    assert "cogmem neo4j start" in message and "NEO4J_URI" in message
    assert "Traceback" not in proc.stderr


def test_commands_fail_at_once_without_retry_noise(unreachable_runs: dict[str, Any]) -> None:
    """A server that is not there is not a transient error: no retry loop, one clean line.

    Needs the verify-connectivity fix in cogmem/store.py (without it each command retries
    for 30-60 s and prints "Transaction failed and will be retried" several times)."""
    for command in ("init", "search", "forget", "export"):
        stderr = unreachable_runs[command].stderr
        assert "will be retried" not in stderr, (command, stderr)
        assert stderr.count("error:") == 1
