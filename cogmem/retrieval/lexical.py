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

The fulltext indexes stay: Neo4j Browser users and ``db.index.fulltext.queryNodes`` use them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

import snowballstemmer

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
    """Postings of one field: term → {document row: term frequency}."""

    def __init__(self) -> None:
        self.postings: dict[str, dict[int, int]] = {}
        self.lengths: dict[int, int] = {}
        self.terms: dict[int, list[str]] = {}
        self.total = 0

    def put(self, row: int, text: str | None) -> None:
        self.remove(row)
        terms = analyse(text) if text else []
        if not terms:
            return
        counts = Counter(terms)
        for term, tf in counts.items():
            self.postings.setdefault(term, {})[row] = tf
        self.terms[row] = list(counts)
        self.lengths[row] = len(terms)
        self.total += len(terms)

    def remove(self, row: int) -> None:
        length = self.lengths.pop(row, None)
        if length is None:
            return
        self.total -= length
        for term in self.terms.pop(row, []):
            docs = self.postings.get(term)
            if docs is not None:
                docs.pop(row, None)
                if not docs:
                    del self.postings[term]

    def score(self, terms: Sequence[str], into: dict[int, float]) -> None:
        n_docs = len(self.lengths)
        if not n_docs:
            return
        avg = self.total / n_docs
        for term in terms:
            docs = self.postings.get(term)
            if not docs:
                continue
            idf = math.log(1.0 + (n_docs - len(docs) + 0.5) / (len(docs) + 0.5))
            for row, tf in docs.items():
                norm = K1 * (1.0 - B + B * self.lengths[row] / avg)
                into[row] = into.get(row, 0.0) + idf * tf / (tf + norm)


class LexicalIndex:
    """BM25 over a set of documents of several fields, added and replaced by row number."""

    def __init__(self, fields: Sequence[str]) -> None:
        self._fields = {name: _Field() for name in fields}

    def put(self, row: int, texts: dict[str, str | None]) -> None:
        for name, field in self._fields.items():
            field.put(row, texts.get(name))

    def search(
        self, words: Iterable[str], limit: int, allowed: Sequence[bool] | None = None
    ) -> list[tuple[int, float]]:
        """The best ``limit`` rows for the query words (each analysed like the texts),
        best first; ``allowed[row]`` False leaves a row out."""
        terms = list(dict.fromkeys(t for w in words for t in analyse(w)))
        if not terms or limit <= 0:
            return []
        scores: dict[int, float] = {}
        for field in self._fields.values():
            field.score(terms, scores)
        hits = [
            (row, score)
            for row, score in scores.items()
            if allowed is None or (row < len(allowed) and allowed[row])
        ]
        hits.sort(key=lambda h: (-h[1], h[0]))
        return hits[:limit]
