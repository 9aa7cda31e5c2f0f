"""``Memory.ask`` keeps an LLM's answer only when it holds against the evidence it was shown
(scripted LLM, real Neo4j and embedder): a made-up answer gives way to the extractive one,
and the answer says who wrote it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.extract import HeuristicExtractor
from cogmem.store import Store
from tests.llm_server import ScriptedLLMServer, settings_for

pytestmark = pytest.mark.integration

TURNS = [
    ("Priya", "I adopted a rescue dog called Biscuit last Saturday."),
    ("Tomas", "That's lovely! I started learning the cello in January."),
]
QUESTION = "What is the name of Priya's dog?"
PLAN = json.dumps({"intent": "single-hop", "entities": ["Priya"]})


def _memory(neo4j_settings: Settings, store: Store, group: str, server: ScriptedLLMServer) -> Any:
    llm = settings_for(server, llm_max_retries=0)
    settings = neo4j_settings.model_copy(
        update={
            "group": group,
            **llm.model_dump(include={"llm", "llm_base_url", "llm_api_key", "llm_model"}),
            "llm_max_retries": 0,
        }
    )
    return Memory(settings, store=store, extractor=HeuristicExtractor())


def _ingest(mem: Memory, tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    rows = [{"conversation": "c", "speaker": s, "text": t} for s, t in TURNS]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    mem.ingest(path)


def _script(server: ScriptedLLMServer, answer: str) -> None:
    def handler(request: dict[str, Any]) -> str:
        if "route questions" in request["messages"][0]["content"]:
            return PLAN
        return answer

    server.set_default(handler)


def test_a_made_up_llm_answer_gives_way_to_the_extractive_one(
    neo4j_settings: Settings,
    store: Store,
    group: str,
    tmp_path: Path,
    llm_server: ScriptedLLMServer,
) -> None:
    _script(llm_server, "The dog is named Rex, a golden retriever from Berlin.")
    with _memory(neo4j_settings, store, group, llm_server) as mem:
        _ingest(mem, tmp_path)
        answer = mem.ask(QUESTION)
    assert answer.answered_by == "extractive"
    assert "Rex" not in answer.text and "Biscuit" in answer.text
    step = [s for s in answer.trace if s.operator == "answer"][-1]
    assert "extractive answer instead" in step.detail and "occur in the records" in step.detail


def test_an_answer_that_holds_is_kept(
    neo4j_settings: Settings,
    store: Store,
    group: str,
    tmp_path: Path,
    llm_server: ScriptedLLMServer,
) -> None:
    _script(llm_server, "Priya's rescue dog is called Biscuit [1:1].")
    with _memory(neo4j_settings, store, group, llm_server) as mem:
        _ingest(mem, tmp_path)
        answer = mem.ask(QUESTION)
    assert answer.answered_by == "llm"
    assert answer.text == "Priya's rescue dog is called Biscuit [1:1]."
    step = [s for s in answer.trace if s.operator == "answer"][-1]
    assert step.detail.startswith("LLM answer kept")


def test_an_answer_citing_a_turn_it_was_not_shown_is_not_kept(
    neo4j_settings: Settings,
    store: Store,
    group: str,
    tmp_path: Path,
    llm_server: ScriptedLLMServer,
) -> None:
    _script(llm_server, "Priya's dog is called Biscuit [9:42].")
    with _memory(neo4j_settings, store, group, llm_server) as mem:
        _ingest(mem, tmp_path)
        answer = mem.ask(QUESTION)
    assert answer.answered_by == "extractive"
    assert "9:42" not in answer.text
