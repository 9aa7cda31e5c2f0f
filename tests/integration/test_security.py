"""Security: LLM output and questions are data, never query text; credentials stay secret.

(tests/integration/test_localserver.py already checks that the generated password is
shown once at start-up and never by ``neo4j status`` or ``config``, and that the config
file is mode 0600; this module covers the rest.)
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cogmem.api import Memory, QuestionError
from cogmem.cli import app
from cogmem.config import Settings, load_settings
from cogmem.models import RelType
from cogmem.store import Store, StoreError
from tests.llm_server import ScriptedLLMServer, settings_for
from tests.servers import throwaway_server

pytestmark = pytest.mark.integration

LABELS = {
    "Memory",
    "Person",
    "Concept",
    "Event",
    "Fact",
    "Claim",
    "Decision",
    "Todo",
    "Reminder",
    "Insight",
    "Turn",
    "Session",
    "Conversation",
    "CogmemMeta",
}
CYPHER = "') MATCH (n) DETACH DELETE n //"
LUCENE = "*:* AND OR NOT ~ ^ group_key:*"
LABEL_INJECTION = "x`:Admin SET n:Admin //"
TEXT = (
    f"Call me {CYPHER} please. I like {LUCENE} a lot. "
    f"My password is {LABEL_INJECTION} and Bob`) DETACH DELETE b is lazy."
)


def hostile_records(request: dict[str, Any]) -> str:
    """An extraction in which every string an LLM controls is an injection attempt."""
    return json.dumps(
        {
            "records": [
                {
                    "type": "Person",
                    "content": CYPHER,
                    "quote": CYPHER,
                    "name": CYPHER,
                    "aliases": [LABEL_INJECTION],
                    "relation": "KNOWS]->(m) DETACH DELETE m //",
                },
                {"type": "Concept", "content": LUCENE, "quote": LUCENE, "name": LUCENE},
                {
                    "type": "Fact",
                    "content": LABEL_INJECTION,
                    "quote": LABEL_INJECTION,
                    "relation": "LIKES`]->(x) SET x:Admin //",
                    "concepts": [LUCENE, CYPHER],
                },
                {
                    "type": "Claim",
                    "content": "Bob`) DETACH DELETE b is lazy.",
                    "quote": "Bob`) DETACH DELETE b is lazy.",
                    "source": CYPHER,
                    "target": "Bob`) DETACH DELETE b",
                    "predicate": CYPHER,
                    "sentiment": -1,
                },
                {
                    "type": "Event",
                    "content": CYPHER,
                    "quote": "I like",
                    "persons": [CYPHER],
                    "time_text": "') RETURN 1 //",
                },
                {"type": "Person:Admin", "content": "x", "quote": "please"},
                {"type": "Memory`:Admin", "content": "x", "quote": "please"},
            ]
        }
    )


def hostile_plan(request: dict[str, Any]) -> str:
    """A routing answer (and, for ask, an answer) full of injection attempts."""
    if request.get("response_format") is None:  # ask's answer: plain text
        return CYPHER
    return json.dumps(
        {
            "intent": "opinion",
            "entities": [CYPHER, "Mallory"],
            "opinion_source": CYPHER,
            "opinion_target": LABEL_INJECTION,
            "time_expression": LUCENE,
            "node_types": ["Claim", "Fact"],
        }
    )


def test_import_and_export_know_exactly_the_fixed_vocabulary() -> None:
    """The export file's labels and relationship types are the graph's fixed vocabulary,
    and the import statement writes each of those types and nothing else."""
    from typing import get_args

    from cogmem import statements
    from cogmem.transfer import Label, RelName

    assert set(get_args(RelName)) == {t.value for t in RelType}
    assert set(get_args(Label)) == LABELS - {"CogmemMeta"}
    text = statements.load("admin/import_relationships")
    assert set(re.findall(r"MERGE \(a\)-\[x:(\w+)\]->\(b\)", text)) == set(get_args(RelName))


def graph_shape(store: Store) -> dict[str, Any]:
    return {
        "labels": set(store.read("admin/db_labels")[0]["labels"]),
        "types": set(store.read("admin/db_relationship_types")[0]["types"]),
        "keys": set(store.read("inspect/property_keys")[0]["keys"]),
        "totals": store.read("admin/count_database")[0],
    }


@pytest.fixture
def bystander(neo4j_settings: Settings, store: Store, tmp_path: Path) -> Iterator[Memory]:
    """Another group that must come out of every attack unchanged."""
    mem = Memory(neo4j_settings.model_copy(update={"group": "test-bystander-sec"}), store=store)
    mem.forget()
    path = tmp_path / "bystander.jsonl"
    path.write_text(
        json.dumps({"conversation": "c", "speaker": "Eve", "text": "I keep bees in Lyon."}),
        encoding="utf-8",
    )
    mem.ingest(path)
    yield mem
    mem.forget()


def test_hostile_llm_extractions_are_stored_verbatim_as_data(
    neo4j_settings: Settings,
    store: Store,
    group: str,
    tmp_path: Path,
    llm_server: ScriptedLLMServer,
    bystander: Memory,
) -> None:
    llm = settings_for(llm_server)
    settings = neo4j_settings.model_copy(
        update={"group": group, **llm.model_dump(include=set(llm.model_fields_set))}
    )
    llm_server.set_default(hostile_records)
    kept = bystander.inspect.counts()
    path = tmp_path / "hostile.jsonl"
    path.write_text(
        json.dumps({"conversation": "c", "speaker": "Mallory", "text": TEXT}), encoding="utf-8"
    )
    mem = Memory(settings, store=store)
    summary = mem.ingest(path)
    assert summary.extractor == "llm" and summary.fallbacks == 0

    shape = graph_shape(store)
    assert shape["labels"] <= LABELS, shape["labels"] - LABELS
    assert shape["types"] <= {t.value for t in RelType}, shape["types"]
    assert all(re.fullmatch(r"[a-z_]+", key) for key in shape["keys"]), shape["keys"]
    assert bystander.inspect.counts() == kept

    rows = store.read("inspect/records_with_turns", group=group)
    turn = store.read("inspect/turns", group=group)[0]
    assert turn["text"] == TEXT
    names = {r["name"] for r in rows if r["type"] == "Person"}
    assert CYPHER in names  # a person called that, nothing more
    assert LUCENE.lower() in {r["name"] for r in rows if r["type"] == "Concept"}
    fact = next(r for r in rows if r["type"] == "Fact" and r["quote"] == LABEL_INJECTION)
    assert fact["content"] == LABEL_INJECTION
    claim = next(r for r in rows if r["type"] == "Claim")
    assert claim["quote"] == "Bob`) DETACH DELETE b is lazy."
    assert claim["target"].lower() == "bob`) detach delete b"  # a concept: lower-cased
    assert not any(r["type"] not in LABELS - {"Memory"} | {"KeyFact"} for r in rows)
    # the hostile relation words became no relationship at all
    assert "KNOWS" not in mem.inspect.counts()["relationships"]


HOSTILE_QUESTIONS = {
    "cypher": CYPHER,
    "lucene": LUCENE,
    "label": LABEL_INJECTION,
    "quotes": "\\\" } ] ) ' `",
    "huge": "x" * 50_000,
    "empty": "",
}


def test_hostile_questions_and_llm_plans_change_nothing(
    neo4j_settings: Settings,
    store: Store,
    group: str,
    tmp_path: Path,
    llm_server: ScriptedLLMServer,
    bystander: Memory,
) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"conversation": "c", "speaker": s, "text": t})
            for s, t in [("Mallory", TEXT), ("Bob", "I think Mallory is brave.")]
        ),
        encoding="utf-8",
    )
    offline = Memory(neo4j_settings.model_copy(update={"group": group}), store=store)
    offline.ingest(path)
    before, kept = graph_shape(store), bystander.inspect.counts()
    llm = settings_for(llm_server)
    online = Memory(
        offline.settings.model_copy(update=llm.model_dump(include=set(llm.model_fields_set))),
        store=store,
    )
    llm_server.set_default(hostile_plan)
    turns = {t["id"] for t in store.read("inspect/turns", group=group)}
    for name, question in HOSTILE_QUESTIONS.items():
        for mem in (offline, online):
            where = f"{name} ({mem.settings.llm})"
            if not question.strip():  # nothing to ask: refused, nothing read or written
                for call in (mem.search, mem.context, mem.ask):
                    with pytest.raises(QuestionError):
                        call(question)
                continue
            evidence = mem.search(question, k=5)
            assert evidence and {e.turn_id for e in evidence} <= turns, where
            assert "quote:" in mem.context(question, budget_tokens=500), where
            assert mem.ask(question).text, where
    assert llm_server.chat_requests, "the LLM router and answerer were asked"
    assert graph_shape(store) == before
    assert bystander.inspect.counts() == kept


# -- credentials ----------------------------------------------------------------------

API_KEY = "sk-cogmem-test-SECRET-0123456789abcdef"


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server of this module's own with auth on and a generated password."""
    with throwaway_server(tmp_path_factory, "auth-neo4j", auth=True) as (inst, state, password):
        assert password
        yield {"inst": inst, "uri": state.bolt_uri, "password": password}


def test_no_secret_in_logs_output_or_neo4j_logs(
    auth_server: dict[str, Any],
    tmp_path: Path,
    llm_server: ScriptedLLMServer,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    password = auth_server["password"]
    llm = settings_for(llm_server, llm_api_key=API_KEY)
    settings = load_settings(
        {
            "neo4j_uri": auth_server["uri"],
            "neo4j_password": password,
            "group": "secrets",
            **llm.model_dump(include=set(llm.model_fields_set)),
        }
    )
    llm_server.fail(500).fail(401)  # errors get logged: their text must not carry the key
    path = tmp_path / "chat.jsonl"
    path.write_text(
        json.dumps({"conversation": "c", "speaker": "Ann", "text": "I moved to Porto in May."}),
        encoding="utf-8",
    )
    # every logger at DEBUG, the driver's and httpx's included
    with caplog.at_level(logging.DEBUG), Memory(settings) as mem:
        summary = mem.ingest(path)
        mem.ask("Where did Ann move?")
    assert summary.fallbacks == 1  # the 401 was logged and fell back
    assert any("401" in r.getMessage() for r in caplog.records)
    logged = "\n".join(
        f"{r.name} {r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in caplog.records
    )
    assert len(caplog.records) > 10  # the driver's debug log was really captured
    assert password not in logged and API_KEY not in logged
    # the key really went to the server, so the check above was not vacuous
    assert llm_server.chat_requests[0].headers["authorization"] == f"Bearer {API_KEY}"

    monkeypatch.setenv("NEO4J_URI", auth_server["uri"])
    monkeypatch.setenv("NEO4J_PASSWORD", password)
    monkeypatch.setenv("COGMEM_LLM_API_KEY", API_KEY)
    shown = CliRunner().invoke(app, ["config"])
    assert shown.exit_code == 0 and "***" in shown.stdout
    assert password not in shown.output and API_KEY not in shown.output
    ingested = CliRunner().invoke(app, ["ingest", str(path), "-g", "secrets", "--json"])
    assert ingested.exit_code == 0, ingested.output
    assert password not in ingested.output and API_KEY not in ingested.output

    for log_file in Path(auth_server["inst"], "logs").rglob("*"):
        if log_file.is_file():
            assert password not in log_file.read_text(errors="replace"), log_file


def test_wrong_password_error_does_not_echo_it(auth_server: dict[str, Any]) -> None:
    wrong = "wrong-SECRET-7f3a9c"
    settings = load_settings({"neo4j_uri": auth_server["uri"], "neo4j_password": wrong})
    with Store(settings) as store, pytest.raises(StoreError) as info:
        store.ping()
    assert "credentials" in str(info.value)
    assert wrong not in str(info.value) and auth_server["password"] not in str(info.value)
