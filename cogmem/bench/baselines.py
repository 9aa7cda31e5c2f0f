"""Flat retrieval baselines over turns, measured in the same run as cogmem.

BM25 (Okapi, k1 = 1.2, b = 0.75; :class:`DatedFlat` uses k1 = 0.5, b = 0) plain and with
stopwords removed and Porter stemming;
dense (the configured embedder, cosine); reciprocal-rank fusion of the stemmed BM25 and
dense. Each can see the turns prefixed with their session date.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from cogmem.text import STOPWORDS

_TOKEN = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=1)
def _stemmer() -> Callable[[str], str]:
    try:
        import snowballstemmer  # the bench extra brings it
    except ImportError:  # a light s-stemmer keeps the baseline usable without it

        def light(word: str) -> str:
            if len(word) > 4 and word.endswith("ies"):
                return word[:-3] + "y"
            if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us")):
                return word[:-1]
            return word

        return light
    return snowballstemmer.stemmer("porter").stemWord


def tokenize(text: str, stem: bool) -> list[str]:
    words = _TOKEN.findall(text.lower().replace("'s ", " "))
    if not stem:
        return words
    stemmer = _stemmer()
    return [stemmer(w) for w in words if w not in STOPWORDS]


class BM25:
    """Okapi BM25 over a fixed list of documents."""

    def __init__(self, docs: Sequence[str], stem: bool, k1: float = 1.2, b: float = 0.75):
        self.stem = stem
        self.k1, self.b = k1, b
        self.docs = [Counter(tokenize(d, stem)) for d in docs]
        self.lengths = np.array([sum(d.values()) for d in self.docs], dtype=np.float64)
        self.avg = float(self.lengths.mean()) if len(self.docs) else 0.0
        df: Counter[str] = Counter()
        for d in self.docs:
            df.update(d.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1.0 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(len(self.docs))
        norm = self.k1 * (1 - self.b + self.b * self.lengths / (self.avg or 1.0))
        for term in set(tokenize(query, self.stem)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            tf = np.array([d.get(term, 0) for d in self.docs], dtype=np.float64)
            out += idf * tf * (self.k1 + 1) / (tf + norm)
        return out


def rank(scores: np.ndarray) -> list[int]:
    return [int(i) for i in np.argsort(-scores, kind="stable")]


def rrf(*rankings: list[int], k: int = 60) -> list[int]:
    fused: dict[int, float] = {}
    for ranking in rankings:
        for position, idx in enumerate(ranking):
            fused[idx] = fused.get(idx, 0.0) + 1.0 / (k + position + 1)
    return sorted(fused, key=lambda i: -fused[i])


class FlatBaselines:
    """All flat baselines for one conversation's turns."""

    NAMES = (
        "bm25",
        "bm25-stemmed",
        "dense",
        "hybrid-rrf",
        "bm25+date",
        "bm25-stemmed+date",
        "dense+date",
        "hybrid-rrf+date",
    )

    def __init__(
        self,
        texts: Sequence[str],
        dated: Sequence[str],
        embed: Callable[[Sequence[str]], np.ndarray],
    ):
        self.bm25 = {False: BM25(texts, stem=False), True: BM25(dated, stem=False)}
        self.stemmed = {False: BM25(texts, stem=True), True: BM25(dated, stem=True)}
        self.vectors = {False: embed(list(texts)), True: embed(list(dated))}

    def rankings(self, question: str, qvec: np.ndarray) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for dated, suffix in ((False, ""), (True, "+date")):
            plain = rank(self.bm25[dated].scores(question))
            stemmed = rank(self.stemmed[dated].scores(question))
            dense = rank(self.vectors[dated] @ qvec)
            out["bm25" + suffix] = plain
            out["bm25-stemmed" + suffix] = stemmed
            out["dense" + suffix] = dense
            out["hybrid-rrf" + suffix] = rrf(stemmed, dense)
        return out


TUNED_K1 = 0.5
"""The strongest flat lexical baseline's term saturation: a repeated word counts little."""
TUNED_B = 0.0
"""And no length normalisation: a long turn is not penalised for its length."""


class DatedFlat:
    """The flat baselines that cogmem must beat, over date-prefixed turns: the stemmed BM25
    with stopwords removed at k1 0.5, b 0 (the strongest flat baseline on the dev split),
    dense cosine with the configured embedder, and their reciprocal-rank fusion (k = 60)."""

    NAMES = ("bm25-stemmed+date", "dense+date", "rrf+date")

    def __init__(self, dated: Sequence[str], embed: Callable[[Sequence[str]], np.ndarray]):
        self.bm25 = BM25(dated, stem=True, k1=TUNED_K1, b=TUNED_B)
        self.vectors = embed(list(dated))

    def rankings(self, question: str, qvec: np.ndarray) -> dict[str, list[int]]:
        lexical = rank(self.bm25.scores(question))
        dense = rank(self.vectors @ qvec)
        return {"bm25-stemmed+date": lexical, "dense+date": dense, "rrf+date": rrf(lexical, dense)}
