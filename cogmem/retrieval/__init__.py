"""Retrieval: the four operators, the intent routers and the controller."""

from cogmem.retrieval.controller import Controller, RankWeights, Retrieval
from cogmem.retrieval.operators import Operators
from cogmem.retrieval.router import LLMRouter, Plan, RuleRouter

__all__ = ["Controller", "LLMRouter", "Operators", "Plan", "RankWeights", "Retrieval", "RuleRouter"]
