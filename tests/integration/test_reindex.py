"""Switching embedders: a clear refusal, then `cogmem reindex`, on a server of its own (it
changes the store-wide vector indexes)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogmem.api import Memory
from cogmem.cli import app
from cogmem.config import Settings, load_settings
from cogmem.server.schema import EmbedderMismatch, recorded_embedder
from cogmem.store import Store
from tests.internals import store_of
from tests.llm_server import ScriptedLLMServer
from tests.servers import throwaway_server

pytestmark = [pytest.mark.integration, pytest.mark.slow]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "priya-and-tomas.jsonl"


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    with throwaway_server(tmp_path_factory, "reindex-neo4j") as (_, state, _):
        yield load_settings(
            {
                "neo4j_uri": state.bolt_uri,
                "neo4j_password": None,
                "group": "reindex",
                "vector_indexes": True,  # reindex rebuilds them for the new dimension
            }
        )


def _all(dimension: int) -> dict[str, int]:
    return dict.fromkeys(("memory_embedding", "turn_embedding", "claim_embedding"), dimension)


def dims(store: Store) -> dict[str, int]:
    return {r["name"]: int(r["dimension"]) for r in store.admin("meta/vector_dimensions")}


def token_rows(store: Store, group: str) -> int:
    """How many of the group's turns carry token rows (late interaction)."""
    ids = [t["id"] for t in store.read("inspect/turns", group=group)]
    return len(store.read("operators/turn_tokens", ids=ids, group=group))


def test_other_embedder_is_refused_then_reindex_switches(
    own_server: Settings, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory(own_server) as mem:
        mem.ingest(EXAMPLE)
        counts = mem.inspect.counts()
        assert dims(store_of(mem)) == _all(384)
        assert token_rows(store_of(mem), "reindex") == counts["labels"]["Turn"]
    openai_env = {
        "NEO4J_URI": own_server.neo4j_uri,
        "COGMEM_GROUP": "reindex",
        "COGMEM_EMBEDDER": "openai",
        "COGMEM_LLM_BASE_URL": llm_server.url + "/v1",
        "COGMEM_LLM_API_KEY": "test",
        "COGMEM_LLM_EMBED_MODEL": "test-embed",
    }
    for key, value in openai_env.items():
        monkeypatch.setenv(key, value)
    other = load_settings()
    with Memory(other) as mem, pytest.raises(EmbedderMismatch) as info:
        mem.search("When is the soft opening?")
    message = str(info.value)
    assert "minilm" in message and "openai:test-embed" in message
    assert "cogmem reindex" in message

    runner = CliRunner()
    result = runner.invoke(app, ["reindex"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"{counts['labels']['Turn']} turns" in result.stdout
    with Memory(other) as mem:
        assert dims(store_of(mem)) == _all(32)
        assert recorded_embedder(store_of(mem)) == ("openai:test-embed", 32)
        assert mem.inspect.counts() == counts  # only vectors changed
        assert token_rows(store_of(mem), "reindex") == 0  # OpenAI gives no token states
        assert mem.search("When is the soft opening of the bakery?", k=3)
    searched = runner.invoke(app, ["search", "soft opening", "--json"], catch_exceptions=False)
    assert searched.exit_code == 0 and json.loads(searched.stdout)["evidence"]

    back = runner.invoke(app, ["reindex", "--embedder", "minilm"], catch_exceptions=False)
    assert back.exit_code == 0, back.output
    with Store(own_server) as store:
        assert dims(store) == _all(384)
        assert recorded_embedder(store) == ("minilm", 384)
        assert token_rows(store, "reindex") == counts["labels"]["Turn"]  # made again
