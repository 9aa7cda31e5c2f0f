"""In-process BM25 (Anchor's lexical half): Lucene's english analysis and BM25 formula over
one group's own texts; documents replaced in place; type filters."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cogmem.retrieval.lexical import LexicalIndex, analyse


def test_analysis_stems_drops_stop_words_and_possessives() -> None:
    assert analyse("Caroline's dogs were running to the adoption centre!") == [
        "carolin",
        "dog",
        "were",
        "run",
        "adopt",
        "centr",
    ]
    assert analyse("") == [] and analyse("the and of") == []


def test_scores_follow_bm25_with_the_groups_own_statistics() -> None:
    index = LexicalIndex(["text"])
    docs = ["pottery class on tuesday", "a pottery pottery workshop", "hiking in the alps"]
    for row, text in enumerate(docs):
        index.put(row, {"text": text})
    hits = dict(index.search(["pottery"], limit=10))
    assert set(hits) == {0, 1}
    # Lucene's BM25: idf · tf / (tf + k1 · (1 − b + b · dl / avgdl))
    lengths = [len(analyse(d)) for d in docs]
    avg = sum(lengths) / 3
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))

    def bm25(tf: int, dl: int) -> float:
        return idf * tf / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / avg))

    assert hits[0] == pytest.approx(bm25(1, lengths[0]))
    assert hits[1] == pytest.approx(bm25(2, lengths[1]))
    assert index.search(["pottery"], limit=1)[0][0] == 1


def test_fields_are_summed_and_a_replaced_document_forgets_its_old_text() -> None:
    index = LexicalIndex(["content", "name"])
    index.put(0, {"content": "loves hiking", "name": "hiking"})
    index.put(1, {"content": "loves chess", "name": None})
    both = dict(index.search(["hiking"], limit=5))
    assert set(both) == {0}
    index.put(0, {"content": "plays chess", "name": None})
    assert index.search(["hiking"], limit=5) == []
    assert {row for row, _ in index.search(["chess"], limit=5)} == {0, 1}


def test_allowed_rows_filter_the_hits() -> None:
    index = LexicalIndex(["text"])
    for row in range(4):
        index.put(row, {"text": f"garden party number {row}"})
    hits = index.search(["garden"], limit=10, allowed=np.array([True, False, True, False]))
    assert sorted(row for row, _ in hits) == [0, 2]
