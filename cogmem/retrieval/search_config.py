"""One serialisable search configuration: every number the turn ranking weighs with.

:class:`SearchConfig` holds the hand-set :class:`~cogmem.retrieval.scoring.RankWeights`
(per-intent overrides included), the claim and plan constants of
:mod:`cogmem.retrieval.scoring` that are weights, and optionally a
:class:`~cogmem.retrieval.learned.LearnedRanking` that orders the candidate turns instead of
the hand-set final score. Its defaults are today's values: a search with
``SearchConfig.for_embedder(name)`` ranks exactly as one with
``RankWeights.for_embedder(name)``.

Written and read as JSON (:meth:`SearchConfig.write`, :meth:`SearchConfig.read`);
``benchmarks/fit_ranking.py`` writes the fitted one. A process reads the file named by the
environment variable :data:`CONFIG_ENV` when it is set (the default configuration
otherwise); ``cogmem search --explain`` shows the configuration a search used.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from pydantic import BaseModel, Field

from cogmem.retrieval.learned import LearnedRanking
from cogmem.retrieval.scoring import RankWeights, ScoringConstants

CONFIG_ENV = "COGMEM_SEARCH_CONFIG"
"""Environment variable: the path of a search configuration (JSON) a process searches with."""


class SearchConfig(BaseModel):
    """Every ranking weight of a search, in one place."""

    name: str = "hand-set"
    """What this configuration is (``hand-set``: today's weights; a fitted one says what
    it was fitted on)."""
    weights: RankWeights = Field(default_factory=RankWeights)
    constants: ScoringConstants = Field(default_factory=ScoringConstants)
    learned: LearnedRanking | None = None
    """When set, the candidate turns are ordered by this model's score instead of the
    hand-set final score (the hand-set weights still choose which turns are grounded and
    matched late: the candidates)."""

    @classmethod
    def for_embedder(cls, embedder: str | None) -> SearchConfig:
        """Today's configuration for ``embedder`` (see :meth:`RankWeights.for_embedder`)."""
        return cls(weights=RankWeights.for_embedder(embedder))

    @classmethod
    def read(cls, path: str | Path) -> SearchConfig:
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))

    def write(self, path: str | Path) -> Path:
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(self.model_dump_json(indent=2) + "\n", encoding="utf-8")
        return out

    @classmethod
    def configured(cls, embedder: str | None) -> SearchConfig:
        """The file named by :data:`CONFIG_ENV` when set (read once per change of the
        file: a search builds its controller each time), else :meth:`for_embedder`."""
        path = os.environ.get(CONFIG_ENV)
        if not path:
            return cls.for_embedder(embedder)
        return _read_cached(path, Path(path).stat().st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _read_cached(path: str, mtime_ns: int) -> SearchConfig:
    """:meth:`SearchConfig.read`, kept per path and modification time."""
    return SearchConfig.read(path)
