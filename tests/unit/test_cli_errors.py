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
from cogmem.cli.admin import index_target
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
    env["COGMEM_CONFIG"] = os.environ.get("COGMEM_CONFIG", "/tmp/cogmem-no-config.toml")
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


# -- one error policy: every command against a table of bad environments and arguments ---


def _all_commands(tmp_path: Path) -> dict[str, list[str]]:
    """Every command, with arguments that are valid (so only the environment is wrong)."""
    chat, _ = _valid_inputs(tmp_path)
    return {
        **_commands(tmp_path),
        "reindex": ["reindex"],
        "config": ["config"],
        "doctor": ["doctor"],
        "groups": ["groups"],
        "stats": ["stats", "--group", "g"],
        "browser": ["browser"],
        "neo4j status": ["neo4j", "status"],
        "bench locomo": ["bench", "locomo", str(chat), "--out", str(tmp_path / "bench")],
    }


OFFLINE = {"config", "browser", "neo4j status"}
"""Commands that never connect: an unreachable server is no error for them."""

# name -> (environment, commands it must fail, words the one error line holds)
BAD_ENVIRONMENTS: dict[str, tuple[dict[str, str], str, tuple[str, ...]]] = {
    "uri-without-scheme": ({"NEO4J_URI": "localhost:7687"}, "all", ("NEO4J_URI", "bolt://")),
    "uri-http-port": (
        {"NEO4J_URI": "http://127.0.0.1:7474"},
        "all",
        ("NEO4J_URI", "HTTP", "bolt://127.0.0.1:7687"),
    ),
    "uri-unknown-scheme": ({"NEO4J_URI": "ftp://host:1"}, "all", ("NEO4J_URI", "scheme")),
    # a command's own --group wins over the environment: those run (and find no server)
    "group-with-space": (
        {"COGMEM_GROUP": "my group"},
        "without --group",
        ("COGMEM_GROUP", "my group"),
    ),
    "unknown-embedder": ({"COGMEM_EMBEDDER": "word2vec"}, "all", ("COGMEM_EMBEDDER",)),
    "bad-config-file": ({"CONFIG": "neo4j_uri = [unclosed\n"}, "all", ("config file",)),
    "server-not-running": ({}, "online", ("not reachable",)),
}


def _isolated_env(tmp_path: Path, changes: dict[str, str], uri: str) -> dict[str, str]:
    config = tmp_path / "config.toml"
    if "CONFIG" in changes:
        config.write_text(changes["CONFIG"], encoding="utf-8")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "COGMEM_", "OPENAI_"))
    }
    env.update(NEO4J_URI=uri, COGMEM_CONFIG=str(config), COGMEM_HOME=str(tmp_path / "home"))
    env.update({k: v for k, v in changes.items() if k != "CONFIG"})
    return env


def _assert_one_line_error(result: Any, words: tuple[str, ...], label: str) -> None:
    output = result.output
    assert result.exit_code not in (0, None), (label, output)
    assert "Traceback" not in output, (label, output)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        label,
        repr(result.exception),
    )
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, (label, result.stderr)
    assert all(word in errors[0] for word in words), (label, errors[0], words)


@pytest.mark.parametrize("case", list(BAD_ENVIRONMENTS))
def test_every_command_fails_in_one_line_in_a_bad_environment(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes, which, words = BAD_ENVIRONMENTS[case]
    env = _isolated_env(tmp_path, changes, changes.get("NEO4J_URI", "bolt://127.0.0.1:1"))
    env["NEO4J_URI"] = changes.get("NEO4J_URI", f"bolt://127.0.0.1:{free_port()}")
    for name in list(os.environ):
        if name.startswith(("NEO4J_", "COGMEM_", "OPENAI_")):
            monkeypatch.delenv(name)
    runner = CliRunner()
    commands = _all_commands(tmp_path)
    checked = 0
    for label, args in commands.items():
        if which == "online" and label in OFFLINE:
            continue
        if which == "without --group" and ("--group" in args or label == "import"):
            continue
        result = runner.invoke(app, args, env=env)
        _assert_one_line_error(result, words, f"{case}: cogmem {' '.join(args)}")
        checked += 1
    assert checked >= len(commands) - 5


def _bad_arguments(tmp_path: Path, uri: str) -> dict[str, tuple[list[str], tuple[str, ...]]]:
    chat, _ = _valid_inputs(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    return {
        "empty-group-ask": (["ask", "who?", "--group", ""], ("group", "empty")),
        "blank-group-search": (["search", "who?", "--group", "   "], ("group", "empty")),
        "empty-group-ingest": (["ingest", str(chat), "--group", ""], ("group", "empty")),
        "empty-group-global": (["--group", "", "groups"], ("group", "empty")),
        "bad-group-chars": (["stats", "--group", "a/b"], ("'a/b'", "not allowed")),
        "empty-question-ask": (["ask", ""], ("question is empty",)),
        "blank-question-search": (["search", "  "], ("question is empty",)),
        "empty-question-context": (["context", ""], ("question is empty",)),
        "export-to-a-folder": (["export", "--out", str(tmp_path)], ("is a directory",)),
        "export-to-missing-folder": (
            ["export", "--out", str(tmp_path / "no" / "x.json")],
            ("does not exist",),
        ),
        "uri-after-command": (["ask", "who?", "--uri", "localhost:7687"], ("bolt://localhost",)),
        "uri-flag-http": (["--uri", "http://localhost:7474", "groups"], ("HTTP",)),
        "locomo-on-jsonl": (
            ["ingest", str(tmp_path / "two.jsonl"), "--format", "locomo"],
            ("--format jsonl", "two.jsonl"),
        ),
        "unknown-command-option": (["groups", "--nope"], ("No such option",)),
    } | (
        {"export-unwritable": (["export", "--out", str(locked / "x.json")], ("permission",))}
        if os.geteuid() != 0
        else {}
    )


def test_bad_arguments_fail_in_one_line_before_connecting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uri = f"bolt://127.0.0.1:{free_port()}"
    (tmp_path / "two.jsonl").write_bytes(jsonl(GOOD_LINE, GOOD_LINE))
    env = _isolated_env(tmp_path, {}, uri)
    for name in list(os.environ):
        if name.startswith(("NEO4J_", "COGMEM_", "OPENAI_")):
            monkeypatch.delenv(name)
    runner = CliRunner()
    for label, (args, words) in _bad_arguments(tmp_path, uri).items():
        result = runner.invoke(app, args, env=env)
        if label == "unknown-command-option":  # click's usage error: exit 2, no traceback
            assert result.exit_code == 2 and "Traceback" not in result.output
            assert all(w in result.output for w in words), result.output
            continue
        _assert_one_line_error(result, words, label)
        assert "not reachable" not in result.stderr, (label, result.stderr)


def test_debug_shows_the_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "localhost:7687")
    quiet = CliRunner().invoke(app, ["groups"])
    assert quiet.exit_code == 1 and isinstance(quiet.exception, SystemExit)
    loud = CliRunner().invoke(app, ["--debug", "groups"])
    assert loud.exit_code == 1 and type(loud.exception).__name__ == "ConfigError"
    after = CliRunner().invoke(app, ["groups", "--debug"])  # a global flag after the command
    assert type(after.exception).__name__ == "ConfigError"


def test_version() -> None:
    from cogmem import __version__

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"cogmem {__version__}"


HOIST_CASES: list[tuple[list[str], list[str]]] = [
    (["ask", "x", "--uri", "bolt://h:1"], ["--uri", "bolt://h:1", "ask", "x"]),
    (["ask", "x", "--uri=bolt://h:1", "--debug"], ["--uri=bolt://h:1", "--debug", "ask", "x"]),
    (["--user", "u", "search", "q", "-k", "3"], ["--user", "u", "search", "q", "-k", "3"]),
    (["init", "--group", "g"], ["--group", "g", "init"]),  # init has no --group of its own
    (["ask", "x", "--group", "g"], ["ask", "x", "--group", "g"]),  # ask's own --group
    (["reindex", "--embedder", "minilm"], ["reindex", "--embedder", "minilm"]),  # its own
    (
        ["bench", "locomo", "f", "--uri", "bolt://h:1"],
        ["bench", "locomo", "f", "--uri", "bolt://h:1"],
    ),
    (["neo4j", "status", "--uri", "bolt://h:1"], ["--uri", "bolt://h:1", "neo4j", "status"]),
    (["ask", "--", "--uri"], ["ask", "--", "--uri"]),
    (["search", "q", "--k", "--uri"], ["search", "q", "--k", "--uri"]),  # a value, not an option
]


@pytest.mark.parametrize(("given", "expected"), HOIST_CASES)
def test_global_options_after_the_command(given: list[str], expected: list[str]) -> None:
    from typer.main import get_command

    from cogmem.cli.app import hoist_global_options

    group = get_command(app)
    ctx = group.make_context("cogmem", ["--help"], resilient_parsing=True)
    assert hoist_global_options(group, ctx, given) == expected  # type: ignore[arg-type]


def test_init_shows_what_each_index_covers_as_cypher_writes_it() -> None:
    rows = [
        {"entityType": "NODE", "labelsOrTypes": ["Turn"], "properties": ["group_id", "vseq"]},
        {"entityType": "NODE", "labelsOrTypes": None, "properties": None},
        {"entityType": "RELATIONSHIP", "labelsOrTypes": None, "properties": None},
        {"entityType": "RELATIONSHIP", "labelsOrTypes": ["CAUSES"], "properties": ["at"]},
    ]
    assert [index_target(r) for r in rows] == [
        ":Turn(group_id, vseq)",
        "every node label",
        "every relationship type",
        "[:CAUSES](at)",
    ]
