"""The CLI end to end: ingest, search, context and ask, offline and with a scripted LLM."""

from __future__ import annotations

import json
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
