from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cogmem import statements
from cogmem.cli import app
from cogmem.embed import embedder_identity
from cogmem.server.schema import (
    VECTOR_INDEX_STATEMENTS,
    EmbedderMismatch,
    check_embedder,
    init_schema,
    recorded_embedder,
)
from cogmem.store import Store

pytestmark = pytest.mark.integration


def _by_name(store: Store) -> dict[str, dict]:
    return {row["name"]: row for row in store.admin("meta/show_indexes")}


def test_init_creates_every_index_the_vector_ones_included(store: Store) -> None:
    name, dimension = embedder_identity(store.settings)
    indexes = _by_name(store)
    # search asks them for large groups
    for vector in ("memory_embedding", "turn_embedding", "claim_embedding"):
        assert indexes[vector]["type"] == "VECTOR"
        assert indexes[vector]["options"]["indexConfig"]["vector.dimensions"] == dimension
    for fulltext, label in (("memory_text", "Memory"), ("turn_text", "Turn")):
        assert indexes[fulltext]["type"] == "FULLTEXT"
        assert indexes[fulltext]["labelsOrTypes"] == [label]
        config = indexes[fulltext]["options"]["indexConfig"]
        assert config["fulltext.analyzer"] == "english"
        assert config["fulltext.eventually_consistent"] is True  # off the commit path
    for rng in (
        "memory_group_id",
        "turn_group_id",
        "session_group_id",
        "memory_time_start",
        "memory_time_end",
        "memory_at",
        "turn_at",
    ):
        assert indexes[rng]["type"] == "RANGE"
    for constraint in ("memory_id", "turn_id", "session_id", "conversation_id"):
        assert constraint in indexes  # backed by a uniqueness index
    assert recorded_embedder(store) == (name, dimension)


def test_init_is_idempotent(store: Store) -> None:
    name, dimension = embedder_identity(store.settings)
    before = _by_name(store)
    report = init_schema(store, name, dimension)
    assert set(_by_name(store)) == set(before)
    # the vector indexes are on here: None keeps them on (IF NOT EXISTS, nothing new)
    assert report.applied == statements.names_in("schema/")
    assert set(VECTOR_INDEX_STATEMENTS) <= set(report.applied)


def test_vector_indexes_on_request_with_the_embedder_dimension_and_dropped_on_request(
    store: Store,
) -> None:
    name, dimension = embedder_identity(store.settings)
    try:
        init_schema(store, name, dimension, vector_indexes=True)
        indexes = _by_name(store)
        for vector in ("memory_embedding", "turn_embedding", "claim_embedding"):
            assert indexes[vector]["type"] == "VECTOR"
            assert indexes[vector]["state"] == "ONLINE"
            config = indexes[vector]["options"]["indexConfig"]
            assert config["vector.dimensions"] == dimension
            assert config["vector.similarity_function"].lower() == "cosine"
        init_schema(store, name, dimension)  # None: leaves them as they are
        assert {"memory_embedding", "turn_embedding", "claim_embedding"} <= set(_by_name(store))
        init_schema(store, name, dimension, vector_indexes=False)
        assert not {"memory_embedding", "turn_embedding", "claim_embedding"} & set(_by_name(store))
        init_schema(store, name, dimension)  # None: leaves them absent
        assert not {"memory_embedding", "turn_embedding", "claim_embedding"} & set(_by_name(store))
    finally:
        init_schema(store, name, dimension, vector_indexes=True)  # as the other tests expect


def test_another_embedder_fails_naming_both_and_the_way_out(store: Store) -> None:
    name, dimension = embedder_identity(store.settings)
    with pytest.raises(EmbedderMismatch) as info:
        init_schema(store, "bge-m3", 1024)
    message = str(info.value)
    assert name in message and "bge-m3" in message
    assert str(dimension) in message and "1024" in message
    assert "cogmem reindex" in message
    # nothing changed: the store still records the original embedder
    assert recorded_embedder(store) == (name, dimension)
    check_embedder(store, name, dimension)


def test_every_statement_explains_against_the_live_server(store: Store) -> None:
    names = statements.all_names()
    assert len(names) == len(set(names)) > 20
    failures = []
    for name in names:
        try:
            store.explain(name, {})
        except Exception as exc:  # collect them all, report together
            failures.append(f"{name}: {exc}")
    assert not failures, "\n".join(failures)


def test_cli_init_makes_the_vector_indexes_by_default_and_drops_them_on_request(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEO4J_URI", store.settings.neo4j_uri)
    if store.settings.neo4j_password:
        monkeypatch.setenv("NEO4J_PASSWORD", store.settings.neo4j_password)
    runner = CliRunner()
    try:
        dropped = runner.invoke(app, ["init", "--no-vector-indexes"], catch_exceptions=False)
        assert dropped.exit_code == 0, dropped.output
        assert not {"memory_embedding", "turn_embedding", "claim_embedding"} & set(_by_name(store))
        made = runner.invoke(app, ["init"], catch_exceptions=False)  # on by default
        assert made.exit_code == 0, made.output
        for vector in ("memory_embedding", "turn_embedding", "claim_embedding"):
            assert vector in made.stdout
        assert {"memory_embedding", "turn_embedding", "claim_embedding"} <= set(_by_name(store))
    finally:
        init_schema(store, *embedder_identity(store.settings), vector_indexes=True)
