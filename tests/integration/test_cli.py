"""The CLI end to end: ingest, search, context and ask, offline and with a scripted LLM."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cogmem.cli import app
from cogmem.config import Settings
from cogmem.store import Store
from tests.llm_server import ScriptedLLMServer

pytestmark = pytest.mark.integration

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "priya-and-tomas.jsonl"


@pytest.fixture
def cli(neo4j_settings: Settings, store: Store, group: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NEO4J_URI", neo4j_settings.neo4j_uri)
    if neo4j_settings.neo4j_password:
        monkeypatch.setenv("NEO4J_PASSWORD", neo4j_settings.neo4j_password)
    monkeypatch.setenv("COGMEM_GROUP", group)
    for name in ("COGMEM_LLM", "COGMEM_LLM_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()

    def run(*args: str, env: dict[str, str] | None = None) -> Any:
        return runner.invoke(app, list(args), env=env, catch_exceptions=False)

    result = run("ingest", str(EXAMPLE), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["turns"] == 30 and summary["format"] == "jsonl"
    return run


def test_search_json_with_trace(cli: Any) -> None:
    result = cli("search", "When did Priya join the hiking club?", "--json", "--explain", "-k", "5")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data["evidence"]) == 5
    top = data["evidence"][0]
    assert top["speaker"] == "Priya" and "hiking club" in top["turn_text"]
    assert data["plan"]["intent"] == "temporal"
    assert [s["operator"] for s in data["trace"]][:3] == ["entities", "route", "anchor"]


def test_search_table_and_context_budget(cli: Any) -> None:
    table = cli("search", "What did Tomás decide about the shop?")
    assert table.exit_code == 0 and "Elm Street" in table.stdout
    ctx = cli("context", "What did Tomás decide about the shop?", "--budget", "120", "--json")
    data = json.loads(ctx.stdout)
    assert 0 < data["tokens"] <= 120 and data["evidence"]
    assert "quote:" in data["text"]


def test_ask_offline_is_extractive_and_grounded(cli: Any) -> None:
    result = cli("ask", "When is the soft opening of the bakery?", "--json")
    data = json.loads(result.stdout)
    assert "20 April 2024" in data["text"]
    assert data["intent"] == "temporal" and data["evidence"]


def test_ask_with_the_scripted_llm(cli: Any, llm_server: ScriptedLLMServer) -> None:
    def handler(request: dict[str, Any]) -> str:
        system = request["messages"][0]["content"]
        if "route questions" in system:
            return json.dumps(
                {
                    "intent": "opinion",
                    "entities": ["Priya", "Marco"],
                    "opinion_source": "Priya",
                    "opinion_target": "Marco",
                }
            )
        user = request["messages"][-1]["content"]
        cited = "4:" if "hardworking" in user else "none"
        return f"Priya now thinks Marco is hardworking [{cited}]."

    llm_server.set_default(handler)
    env = {
        "COGMEM_LLM": "openai",
        "COGMEM_LLM_BASE_URL": llm_server.url + "/v1",
        "COGMEM_LLM_API_KEY": "test",
        "COGMEM_LLM_TIMEOUT": "5",
    }
    result = cli("ask", "What does Priya think of Marco now?", "--json", env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["text"] == "Priya now thinks Marco is hardworking [4:]."
    answer_request = llm_server.chat_requests[-1]
    prompt = answer_request.message("user")
    assert "Memory records:" in prompt and "turn 2:" in prompt  # the packed evidence, with ids
    assert "Marco" in prompt and data["intent"] == "opinion"


def test_ask_falls_back_when_the_llm_fails(cli: Any, llm_server: ScriptedLLMServer) -> None:
    for _ in range(10):
        llm_server.fail(500)
    env = {
        "COGMEM_LLM": "openai",
        "COGMEM_LLM_BASE_URL": llm_server.url + "/v1",
        "COGMEM_LLM_API_KEY": "test",
        "COGMEM_LLM_MAX_RETRIES": "1",
        "COGMEM_LLM_TIMEOUT": "2",
    }
    result = cli("ask", "When is the soft opening of the bakery?", "--json", "--explain", env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "20 April 2024" in data["text"]
    assert any(
        step["operator"] == "answer" and "LLM failed" in step["detail"] for step in data["trace"]
    )


# -- groups you can see, one error policy, naive datetimes --------------------------------


def test_ingest_summary_counts_what_is_stored(cli: Any, group: str, store: Store) -> None:
    rows = store.read("inspect/record_labels", group=group)
    stored = {r["label"]: r["count"] for r in rows}
    again = cli("ingest", str(EXAMPLE), "--json", "--group", group)
    data = json.loads(again.stdout)
    assert data["records"] == {}  # idempotent: the second ingest stores nothing new
    assert data["records_in_group"] == sum(stored.values())
    assert "KeyFact" not in stored and stored["Person"] >= 2


def test_first_ingest_summary_equals_the_stored_labels(cli: Any, store: Store) -> None:
    other = f"test-summary-{uuid.uuid4().hex[:10]}"
    try:
        result = cli("ingest", str(EXAMPLE), "--json", "--group", other)
        summary = json.loads(result.stdout)["records"]
        rows = store.read("inspect/record_labels", group=other)
        assert summary == {r["label"]: r["count"] for r in rows}
    finally:
        while store.write("admin/forget_group", group=other, batch=5000)[0]["deleted"]:
            pass


def test_groups_and_stats(cli: Any, group: str) -> None:
    listed = json.loads(cli("groups", "--json").stdout)
    mine = next(row for row in listed if row["group"] == group)
    assert mine["turns"] == 30 and mine["records"] > 30 and mine["conversations"] == 1
    assert mine["last_ingest"]
    stats = json.loads(cli("stats", "--group", group, "--json").stdout)
    assert stats["turns"] == 30 and stats["records"] == mine["records"]
    assert stats["first_said"].startswith("2024-03") and stats["labels"]["Turn"] == 30
    table = cli("groups")
    assert group in table.stdout


def test_a_question_to_an_unknown_group_warns_with_close_names(cli: Any, group: str) -> None:
    result = cli("ask", "Who is Marco?", "--group", group.upper())
    assert result.exit_code == 0
    assert "warning:" in result.stderr and repr(group) in result.stderr
    quiet = cli("ask", "Who is Marco?", "--group", group)
    assert "warning:" not in quiet.stderr


def test_shared_options_after_the_command_and_unwrapped_json(
    cli: Any, group: str, neo4j_settings: Settings
) -> None:
    long = "When did Priya join the hiking club? " + "really " * 40
    result = cli("search", long, "--explain", "--uri", neo4j_settings.neo4j_uri, "-k", "3")
    assert result.exit_code == 0, result.output
    plan = [line for line in result.stderr.splitlines() if line.startswith("plan ")]
    assert len(plan) == 1 and json.loads(plan[0][5:])["intent"]  # one line, valid JSON
    assert "Evidence for" in result.stdout and "…" in result.stdout
    assert result.stdout.count("really") < 10  # the title is cut, not 40 times "really"


def test_forget_json_keys(cli: Any, group: str) -> None:
    before = json.loads(cli("stats", "--group", group, "--json").stdout)
    gone = json.loads(cli("forget", "--group", group, "--yes", "--json").stdout)
    assert gone == {
        "group": group,
        "nodes": before["nodes"],
        "relationships": sum(before["relationships"].values()),
        "labels": before["labels"],
    }
    again = json.loads(cli("forget", "--group", group, "--yes", "--json").stdout)
    assert set(again) == set(gone) and again["nodes"] == 0


def test_a_naive_add_turn_then_search_works(
    neo4j_settings: Settings, store: Store, group: str
) -> None:
    from datetime import datetime

    from cogmem.api import Memory

    with Memory(neo4j_settings.model_copy(update={"group": group}), store=store) as mem:
        mem.add_turn(
            "Rita", "I fixed my bike at the Oak Street shop.", at=datetime(2024, 7, 10, 12, 2)
        )
        mem.add_turn("Sam", "Nice, when was that?", at=datetime(2024, 7, 10, 12, 5))
        assert mem.admin.doctor() == []  # nothing stored without a time zone
        hits = mem.search("Where did Rita fix her bike?")
        assert hits and hits[0].turn_at is not None and hits[0].turn_at.utcoffset() is not None
        assert any("Oak Street" in (h.turn_text or "") for h in hits)
        assert hits[0].turn_at.isoformat().startswith("2024-07-10T12:0")


def test_doctor_repairs_a_group_with_local_datetimes(
    cli: Any, group: str, neo4j_settings: Settings
) -> None:
    from neo4j import GraphDatabase

    auth = (
        (neo4j_settings.neo4j_user, neo4j_settings.neo4j_password)
        if neo4j_settings.neo4j_password
        else None
    )
    with GraphDatabase.driver(neo4j_settings.neo4j_uri, auth=auth) as driver:
        for label in ("Turn", "Memory"):  # what an older cogmem wrote for a naive datetime
            driver.execute_query(
                f"MATCH (n:{label} {{group_id: $g}}) WHERE n.at IS NOT NULL "
                "SET n.at = localdatetime({datetime: n.at})",
                g=group,
            )
        driver.execute_query(
            "MATCH (n:Memory {group_id: $g}) WHERE n.time_start IS NOT NULL "
            "SET n.time_start = localdatetime({datetime: n.time_start})",
            g=group,
        )
    broken = cli("ask", "When did Priya join the hiking club?")
    assert broken.exit_code == 1 and "Traceback" not in broken.output
    line = " ".join(broken.stderr.split())
    assert "error:" in line and f"cogmem doctor --group {group} --fix" in line
    found = cli("doctor", "--group", group, "--json")
    assert found.exit_code == 3
    keys = {row["key"] for row in json.loads(found.stdout)["local_times"]}
    assert keys == {"at", "time_start"}
    fixed = cli("doctor", "--group", group, "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert cli("doctor", "--group", group).exit_code == 0
    answer = cli("ask", "When did Priya join the hiking club?", "--json")
    assert answer.exit_code == 0 and json.loads(answer.stdout)["evidence"]
