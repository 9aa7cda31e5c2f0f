"""Bad input through the CLI against the real server: refused with the file and the place,
the graph as it was; odd questions (empty, huge, query syntax, markup) answered, never a
crash. (Readers' own property tests are in tests/unit/test_readers.py, the errors without
a server in tests/unit/test_cli_errors.py.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cogmem.api import Memory
from cogmem.cli import app
from cogmem.config import Settings
from cogmem.store import Store

pytestmark = pytest.mark.integration

MARKUP = "[/] [b]x[/b] [red]y[/red] [/nothing]"
TURNS = [
    ("Ann", "I moved to Porto in May and I love the tiles there."),
    ("Ben", "Nice! I adopted a dog called Pixel yesterday."),
    ("Ann", f"My notes say {MARKUP} about the move."),
    ("Ben", "Remember to send me the *:* AND OR NOT ~ ^ list."),
]


def chat(path: Path) -> Path:
    path.write_text(
        "\n".join(
            json.dumps(
                {
                    "conversation": "c",
                    "speaker": s,
                    "text": t,
                    "timestamp": f"2024-05-0{i + 1}T10:00:00Z",
                }
            )
            for i, (s, t) in enumerate(TURNS)
        ),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def cli(
    neo4j_settings: Settings,
    store: Store,
    group: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Callable[..., Any]:
    monkeypatch.setenv("NEO4J_URI", neo4j_settings.neo4j_uri)
    if neo4j_settings.neo4j_password:
        monkeypatch.setenv("NEO4J_PASSWORD", neo4j_settings.neo4j_password)
    monkeypatch.setenv("COGMEM_GROUP", group)
    for name in ("COGMEM_LLM", "COGMEM_LLM_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(app, list(args))

    assert run("ingest", str(chat(tmp_path / "chat.jsonl"))).exit_code == 0
    return run


def jsonl_bytes(*rows: object) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows).encode()


GOOD = {"conversation": "c2", "speaker": "ann", "text": "hello again"}
BAD_FILES: dict[str, tuple[str, bytes, list[str], str]] = {
    "malformed-json": ("conv.json", b'[{"sample_id": "x"', [], "line 1"),
    "malformed-jsonl": ("chat.jsonl", jsonl_bytes(GOOD, GOOD, "{oops"), [], "line 3"),
    "wrong-type": (
        "chat.jsonl",
        jsonl_bytes(GOOD, {"conversation": "c2", "speaker": ["x"], "text": "hi"}),
        [],
        "line 2",
    ),
    "missing-field": (
        "chat.jsonl",
        jsonl_bytes(GOOD, {"conversation": "c2", "text": "hi"}),
        [],
        "line 2",
    ),
    "binary": ("chat.jsonl", jsonl_bytes(GOOD).replace(b"hello", b"hel\x00lo"), [], "byte"),
    "empty": ("conv.json", b"  \n", [], "empty"),
    "unknown-format": ("chat.jsonl", jsonl_bytes(GOOD), ["--format", "csv"], "unknown format"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_files_leave_the_graph_as_it_was(
    cli: Callable[..., Any],
    store: Store,
    neo4j_settings: Settings,
    group: str,
    tmp_path: Path,
    case: str,
) -> None:
    mem = Memory(neo4j_settings.model_copy(update={"group": group}), store=store)
    before, total = mem.inspect.counts(), store.read("admin/count_database")[0]
    name, content, extra, place = BAD_FILES[case]
    path = tmp_path / name
    path.write_bytes(content)
    result = cli("ingest", str(path), *extra)
    assert result.exit_code == 1
    message = " ".join(result.stderr.split())
    assert message.startswith("error:") and str(path) in message and place in message, message
    assert "Traceback" not in result.output and not isinstance(result.exception, Exception)
    assert mem.inspect.counts() == before
    assert store.read("admin/count_database")[0] == total


QUESTIONS = {
    "empty": "",
    "blank": "   \n\t ",
    "huge": "Where did Ann move? " * 2_500,  # 50k characters
    "lucene": '*:* AND OR NOT ~ ^ " \\ / { } [ ]',
    "cypher": "') MATCH (n) DETACH DELETE n //",
    "unicode": "¿Dónde vive Ann? 日本語 \u2028 \U0001f4a5",
}


@pytest.mark.parametrize("name", list(QUESTIONS))
def test_odd_questions_get_answers_or_one_line_through_the_cli(
    cli: Callable[..., Any], store: Store, name: str
) -> None:
    question = QUESTIONS[name]
    total = store.read("admin/count_database")[0]
    for args in (
        ("search", question, "--json", "--explain"),
        ("context", question, "--json"),
        ("ask", question, "--json"),
    ):
        result = cli(*args)
        if not question.strip():  # nothing to ask: one line, exit 1, no traceback
            assert result.exit_code == 1, (args[0], result.output)
            assert "question is empty" in result.output
            assert "Traceback" not in result.output and len(result.output.splitlines()) == 1
            continue
        assert result.exit_code == 0, (args[0], result.output)
        data = json.loads(result.stdout)
        assert data["evidence"], args[0]
    assert store.read("admin/count_database")[0] == total


def test_questions_and_stored_text_that_look_like_markup_are_printed_verbatim(
    cli: Callable[..., Any],
) -> None:
    """The human-readable output shows brackets as typed, for questions and for what
    people said. Needs the escape() fix in cogmem/cli.py."""
    for args in (
        ("search", "What do Ann's notes say? [/]", "--explain"),
        ("ask", "What do Ann's notes say? [/]", "--explain"),
        ("context", "What do Ann's notes say? [/]", "--explain"),
    ):
        result = cli(*args)
        assert result.exit_code == 0, (args[0], result.output)
        assert not isinstance(result.exception, Exception), result.exception
        shown = "".join(result.stdout.split())
        assert "[/]" in shown  # the question or the turn, not swallowed as markup
    table = cli("search", "notes about the move", "-k", "4")
    assert table.exit_code == 0, table.output
    assert "[b]x[/b]" in table.stdout and "[red]y[/red]" in table.stdout
    # a record's time words are shown in brackets too (without the fix they vanish)
    dog = cli("search", "Who adopted a dog called Pixel?", "-k", "1")
    assert "[yesterday]" in dog.stdout, dog.stdout
