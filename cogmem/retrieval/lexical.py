"""BM25 over one group's own texts, in process: Anchor's lexical half without a round trip.

Why not the fulltext index alone: Lucene's BM25 statistics (document frequencies, document
count, average length) are those of the whole index, shared by every tenant, so one
group's scores moved when other groups were added — measured: the same dev searches lost
0.7 points of R@10 when a second copy of the dev conversations was ingested into other
groups. Here every statistic is the group's own.

The analysis follows the fulltext indexes' ``english`` analyzer: words (letters and
digits), lowercased, a trailing possessive ``'s`` dropped, Lucene's English stop words
removed, Porter stemming. Scores are Lucene's BM25 (k1 = 1.2, b = 0.75, idf
``ln(1 + (N − n + 0.5) / (n + 0.5))``), one field per text: a record's content and name are
scored as two fields and summed, as Lucene sums its per-field clauses.

The fulltext indexes answer the same words when the process holds no copy of the group
(``operators/fulltext_*``, :mod:`cogmem.retrieval.graph_source`); the analysis here is theirs,
so both match the same texts (``tests/integration/test_cold_search.py``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

import numpy as np
import snowballstemmer

from cogmem.retrieval.topk import best_rows

K1 = 1.2
B = 0.75
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
LUCENE_ENGLISH_STOP_WORDS = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with""".split()
)
_STEMMER = snowballstemmer.stemmer("porter")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def analyse(text: str) -> list[str]:
    """The terms Lucene's ``english`` analyzer makes of a text."""
    out = []
    for raw in _WORD.findall(text.lower()):
        word = raw.replace("’", "'")
        if word.endswith("'s"):
            word = word[:-2]
        word = word.replace("'", "")
        if word and word not in LUCENE_ENGLISH_STOP_WORDS:
            out.append(_stem(word))
    return out


class _Field:
    """Postings of one field: term → {document row: term frequency}, with numpy copies
    of each term's postings made on first use and dropped when the term changes."""

    def __init__(self) -> None:
        self.postings: dict[str, dict[int, int]] = {}
        self.terms: dict[int, list[str]] = {}
        self.lengths = np.zeros(0, np.float32)
        self.docs = 0
        self.total = 0
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def put(self, row: int, text: str | None) -> None:
        self.remove(row)
        terms = analyse(text) if text else []
        if not terms:
            return
        counts = Counter(terms)
        for term, tf in counts.items():
            self.postings.setdefault(term, {})[row] = tf
            self._arrays.pop(term, None)
        self.terms[row] = list(counts)
        if row >= self.lengths.size:
            grown = np.zeros(max(row + 1, 2 * self.lengths.size), np.float32)
            grown[: self.lengths.size] = self.lengths
            self.lengths = grown
        self.lengths[row] = len(terms)
        self.docs += 1
        self.total += len(terms)

    def remove(self, row: int) -> None:
        terms = self.terms.pop(row, None)
        if terms is None:
            return
        self.docs -= 1
        self.total -= int(self.lengths[row])
        self.lengths[row] = 0
        for term in terms:
            self._arrays.pop(term, None)
            docs = self.postings.get(term)
            if docs is not None:
                docs.pop(row, None)
                if not docs:
                    del self.postings[term]

    def _postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        arrays = self._arrays.get(term)
        if arrays is None:
            docs = self.postings.get(term)
            if not docs:
                return None
            rows = np.fromiter(docs.keys(), np.int64, count=len(docs))
            tfs = np.fromiter(docs.values(), np.float32, count=len(docs))
            arrays = self._arrays[term] = (rows, tfs)
        return arrays

    def idf(self, term: str) -> float:
        """BM25's idf of a term in this field (0 without documents)."""
        if not self.docs:
            return 0.0
        n = len(self.postings.get(term, ()))
        return math.log(1.0 + (self.docs - n + 0.5) / (n + 0.5))

    def score(self, terms: Sequence[str], into: np.ndarray) -> None:
        """Add this field's BM25 score of every document to ``into`` (indexed by row)."""
        if not self.docs:
            return
        avg = self.total / self.docs
        for term in terms:
            arrays = self._postings(term)
            if arrays is None:
                continue
            rows, tfs = arrays
            n = rows.size
            idf = math.log(1.0 + (self.docs - n + 0.5) / (n + 0.5))
            norm = K1 * (1.0 - B + B * self.lengths[rows] / avg)
            into[rows] += idf * tfs / (tfs + norm)


class LexicalIndex:
    """BM25 over a set of documents of several fields, added and replaced by row number."""

    def __init__(self, fields: Sequence[str]) -> None:
        self._fields = {name: _Field() for name in fields}

    def put(self, row: int, texts: dict[str, str | None]) -> None:
        for name, field in self._fields.items():
            field.put(row, texts.get(name))

    def idf(self, word: str) -> float:
        """How rare a word is here: BM25's idf of its term, the largest over the fields (0
        for a word the analyzer drops, a stop word)."""
        terms = analyse(word)
        return max((f.idf(t) for t in terms for f in self._fields.values()), default=0.0)

    def search(
        self,
        words: Iterable[str],
        limit: int,
        allowed: np.ndarray | None = None,
        name: Callable[[int], str] = str,
        names: Callable[[], np.ndarray] | None = None,
    ) -> list[tuple[int, float]]:
        """The best ``limit`` rows for the query words (each analysed like the texts),
        best first, equal scores by ``name(row)`` (or ``names()[row]``, every row's name at
        once, when many tie); ``allowed[row]`` False leaves a row out."""
        terms = list(dict.fromkeys(t for w in words for t in analyse(w)))
        if not terms or limit <= 0:
            return []
        size = max((f.lengths.size for f in self._fields.values()), default=0)
        scores = np.zeros(size, np.float32)
        for field in self._fields.values():
            field.score(terms, scores)
        if allowed is not None:
            keep = np.zeros(size, bool)
            n = min(size, allowed.size)
            keep[:n] = allowed[:n]
            scores[~keep] = 0.0
        hits = np.flatnonzero(scores > 0.0)
        every = (lambda: names()[hits]) if names is not None else None
        best = best_rows(scores[hits], limit, lambda i: name(int(hits[i])), every)
        return [(int(hits[i]), float(scores[hits[i]])) for i in best]
