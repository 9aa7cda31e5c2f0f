"""Late interaction: the question's words, their match against a turn's tokens, the
stored token rows, and what each embedder gives a turn."""

from __future__ import annotations

import numpy as np
import pytest

from cogmem.embed import MiniLMEmbedder
from cogmem.embed.tokens import TOKEN_ROWS, TOKEN_SCALES, embed_texts, pack, unpack
from cogmem.retrieval.late import match, query_words, scaled

pytestmark = pytest.mark.unit


def test_the_words_to_match_leave_out_stopwords_names_and_continuations() -> None:
    pieces = ["what", "activities", "does", "melanie", "part", "##ake", "in", "?"]
    assert query_words(pieces, {"melanie"}) == [(1, "activities"), (4, "partake")]


def stored(rows: list[list[float]]) -> tuple[bytes, list[float]]:
    kept = pack(np.asarray(rows, np.float32))
    return kept[TOKEN_ROWS], kept[TOKEN_SCALES]


def test_a_word_matches_its_best_token_and_rare_words_weigh_more() -> None:
    query = np.eye(2, dtype=np.float32)  # two words, on two axes
    turn = stored([[1.0, 0.0], [0.6, 0.8]])  # word one exactly, word two at 0.8
    other = stored([[0.0, 1.0]])  # word two exactly, word one not at all
    same, rare = match(query, np.array([1.0, 1.0]), [turn, other])
    assert same == pytest.approx(0.9, abs=0.01) and rare == pytest.approx(0.5, abs=0.01)
    (weighted,) = match(query, np.array([3.0, 1.0]), [turn])
    assert weighted == pytest.approx((3 * 1.0 + 0.8) / 4, abs=0.01)
    assert match(query, np.array([1.0, 1.0]), []) == []
    assert match(query, np.array([0.0, 0.0]), [turn]) == [0.0]  # no word to weigh
    # a turn without rows scores 0 and leaves the others' scores as they are
    assert match(query, np.array([1.0, 1.0]), [(b"", []), turn]) == [0.0, same]


def test_one_product_for_all_turns_equals_each_turn_alone() -> None:
    rng = np.random.default_rng(1)
    query = rng.normal(size=(4, 384)).astype(np.float32)
    query /= np.linalg.norm(query, axis=1, keepdims=True)
    weights = rng.uniform(0.5, 3.0, size=4)
    turns = [stored(rng.normal(size=(n, 384)).tolist()) for n in (1, 7, 30, 3)]
    together = match(query, weights, turns)
    for turn, value in zip(turns, together, strict=True):
        rows = unpack(*turn)
        alone = float(weights @ (query @ rows.T).max(axis=1) / weights.sum())
        assert value == pytest.approx(alone, abs=2e-3)  # int8 rows, not normalised again


def test_matches_are_scaled_from_the_worst_to_the_best() -> None:
    assert scaled({"a": 0.2, "b": 0.6, "c": 0.4}) == pytest.approx({"a": 0, "b": 1, "c": 0.5})
    assert scaled({"a": 0.3, "b": 0.3}) == {"a": 0.0, "b": 0.0}
    assert scaled({}) == {}


def test_token_rows_survive_int8_storage() -> None:
    rng = np.random.default_rng(0)
    states = rng.normal(size=(7, 384)).astype(np.float32) * 3
    stored = pack(states)
    assert len(stored[TOKEN_ROWS]) == 7 * 384 and len(stored[TOKEN_SCALES]) == 7
    rows = unpack(stored[TOKEN_ROWS], stored[TOKEN_SCALES])
    unit = states / np.linalg.norm(states, axis=1, keepdims=True)
    assert rows.shape == (7, 384)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(rows * unit, axis=1)) > 0.999  # cosine to the float rows
    assert pack(np.zeros((0, 384), np.float32)) == {}


def test_a_turn_keeps_the_rows_of_its_own_words() -> None:
    embedder = MiniLMEmbedder()
    texts = ["Jo Anne: I held a gaming tourney.", "a record's content"]
    vectors, props = embed_texts(embedder, texts, ["Jo Anne", None])
    assert np.array_equal(vectors, embedder.embed(texts))
    words = embedder.pieces("I held a gaming tourney.")
    assert len(props[0][TOKEN_SCALES]) == len(words)  # "jo", "anne", ":" left out
    assert props[1] == {}  # not a turn


def test_an_embedder_without_token_states_gives_turns_no_rows() -> None:
    class Plain:
        name, dimension = "plain", 2

        def embed(self, texts: list[str]) -> np.ndarray:
            return np.ones((len(texts), 2), np.float32) / np.sqrt(2)

        def embed_query(self, text: str) -> np.ndarray:
            return self.embed([text])[0]

    vectors, props = embed_texts(Plain(), ["Al: hi"], ["Al"])
    assert vectors.shape == (1, 2) and props == [{}]
