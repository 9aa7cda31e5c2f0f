"""Clients and Memory's constructor: one owner per client, built once, closed by its owner."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from cogmem.api import Memory
from cogmem.clients import Clients
from cogmem.config import ConfigError, Settings
from cogmem.extract import HeuristicExtractor
from cogmem.extract.llm_extractor import LLMExtractor
from cogmem.llm import LLMClient
from cogmem.retrieval import LLMRouter, RuleRouter
from tests.llm_server import ScriptedLLMServer, settings_for

pytestmark = pytest.mark.unit

OFFLINE = Settings(neo4j_uri="bolt://127.0.0.1:1", llm="none")


class FakeEmbedder:
    name = "fake-8"
    dimension = 8

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), self.dimension), np.float32) / np.sqrt(self.dimension)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


class FakeDriver:
    closed = 0

    def close(self) -> None:
        self.closed += 1


def counting_close(client: LLMClient) -> list[int]:
    calls: list[int] = []
    original = client.close

    def close() -> None:
        calls.append(1)
        original()

    client.close = close  # type: ignore[method-assign]
    return calls


def test_offline_clients_have_no_llm() -> None:
    with Clients(OFFLINE) as clients:
        assert clients.llm is None
        assert isinstance(clients.extractor, HeuristicExtractor)
        assert isinstance(clients.router, RuleRouter)
        assert clients.extractor is clients.extractor  # built once


def test_one_llm_client_shared_and_closed_once(llm_server: ScriptedLLMServer) -> None:
    settings = settings_for(llm_server).model_copy(update={"neo4j_uri": "bolt://127.0.0.1:1"})
    clients = Clients(settings)
    llm = clients.llm
    assert isinstance(llm, LLMClient)
    assert clients.llm is llm
    extractor = clients.extractor
    assert isinstance(extractor, LLMExtractor) and extractor.client is llm
    router = clients.router
    assert isinstance(router, LLMRouter) and router.client is llm
    calls = counting_close(llm)
    clients.close()
    clients.close()
    assert calls == [1]


def test_given_objects_are_used_and_never_closed(llm_server: ScriptedLLMServer) -> None:
    settings = settings_for(llm_server).model_copy(update={"neo4j_uri": "bolt://127.0.0.1:1"})
    driver = FakeDriver()
    with LLMClient(settings) as llm:
        calls = counting_close(llm)
        mem = Memory(settings, driver=driver, llm=llm, embedder=FakeEmbedder())  # type: ignore[arg-type]
        assert mem.llm is llm
        assert mem.clients.store._driver is driver
        assert mem.admin.embedder_identity() == ("fake-8", 8)
        assert isinstance(mem.extractor, LLMExtractor)
        mem.close()
        assert calls == [] and driver.closed == 0


def test_memory_builds_and_closes_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    mem = Memory(OFFLINE, embedder=FakeEmbedder())
    closed: list[Any] = []
    monkeypatch.setattr(mem.clients.store, "close", lambda: closed.append(1))
    other = mem.for_group("someone-else")
    assert other.group == "someone-else" and other.clients is mem.clients
    assert other.clients.store is mem.clients.store and other.embedder is mem.embedder
    other.close()
    assert closed == []
    mem.close()
    assert closed == [1]


def test_store_passed_in_is_not_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    with Clients(OFFLINE) as owner:
        closed: list[Any] = []
        monkeypatch.setattr(owner.store, "close", lambda: closed.append(1))
        Memory(OFFLINE, store=owner.store).close()
        assert closed == []


def test_clients_or_objects_not_both() -> None:
    with Clients(OFFLINE) as clients:
        with pytest.raises(ConfigError):
            Memory(OFFLINE, clients=clients, embedder=FakeEmbedder())
        assert Memory(clients=clients).settings is OFFLINE
    with pytest.raises(ConfigError):
        Clients(OFFLINE, store=Clients(OFFLINE).store, driver=FakeDriver())  # type: ignore[arg-type]


def test_consolidate_refuses_unknown_jobs_before_touching_the_store() -> None:
    with Memory(OFFLINE) as mem, pytest.raises(ValueError, match="nonsense"):
        mem.consolidate(jobs=["facts", "nonsense"])


def test_init_takes_name_and_dimension_together() -> None:
    with Memory(OFFLINE) as mem, pytest.raises(ValueError):
        mem.admin.init("fake-8")
