"""Retrieval: the four operators, the intent routers, the per-intent recipes, the ranking
and the controller that runs them.

The names below are imported lazily, so that importing one submodule (say the pure ranking
maths in :mod:`cogmem.retrieval.scoring`) does not load the driver and the embedders.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cogmem.retrieval.controller import Controller, Retrieval
    from cogmem.retrieval.operators import Operators
    from cogmem.retrieval.router import LLMRouter, Plan, RuleRouter
    from cogmem.retrieval.scoring import RankWeights

__all__ = ["Controller", "LLMRouter", "Operators", "Plan", "RankWeights", "Retrieval", "RuleRouter"]

_HOMES = {
    "Controller": "controller",
    "Retrieval": "controller",
    "Operators": "operators",
    "LLMRouter": "router",
    "Plan": "router",
    "RuleRouter": "router",
    "RankWeights": "scoring",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'cogmem.retrieval' has no attribute {name!r}")
    return getattr(import_module(f"cogmem.retrieval.{home}"), name)
