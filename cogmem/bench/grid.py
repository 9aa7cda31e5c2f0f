"""Grids of ranking weights for the tuning benchmarks (``benchmarks/tune_weights.py``,
``benchmarks/cv5.py``): an axis is a :class:`~cogmem.retrieval.RankWeights` field
(``previous``), a per-intent override (``multi-hop.speaker``) or ``vectors`` (a factor on
every vector weight); a setting is one point of the grid."""

from __future__ import annotations

import argparse
import itertools
from typing import Any

from cogmem.retrieval import RankWeights

Value = float | str
Setting = dict[str, Value]

VECTOR_WEIGHTS = ("turn_vector", "record_vector", "graph")
"""The weights that the ``vectors`` axis multiplies, per-intent overrides included."""


def parse_axis(text: str) -> tuple[str, tuple[Value, ...]]:
    """``name=v1,v2,…`` → (name, values); a value that is not a number stays a word
    (``cosines=raw,pool``)."""
    name, _, values = text.partition("=")
    if not name or not values:
        raise argparse.ArgumentTypeError(f"expected NAME=V1,V2,…, got {text!r}")
    return name.strip(), tuple(_value(v.strip()) for v in values.split(","))


def _value(text: str) -> Value:
    try:
        return float(text)
    except ValueError:
        return text


def settings_of(grid: dict[str, tuple[Value, ...]]) -> list[Setting]:
    names = list(grid)
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*grid.values())]


def weights_for(setting: Setting, base: RankWeights | None = None) -> RankWeights:
    """``base`` (the current weights) with the setting's values; ``intent.field`` sets a
    per-intent override; ``vectors=F`` multiplies every vector weight (:data:`VECTOR_WEIGHTS`,
    overrides included) by F, after the other values are set."""
    base = base or RankWeights()
    fields = set(RankWeights.model_fields) - {"by_intent"}
    top: dict[str, Any] = {}
    by_intent = {intent: dict(over) for intent, over in base.by_intent.items()}
    factor = 1.0
    for key, value in setting.items():
        intent, _, name = key.rpartition(".")
        if name == "vectors" and not intent:
            factor = float(value)
            continue
        if name not in fields:
            raise SystemExit(f"unknown weight {name!r} (known: {', '.join(sorted(fields))})")
        if intent:
            by_intent.setdefault(intent, {})[name] = float(value)
        else:
            top[name] = int(value) if name in ("pool", "ground") else value
    merged = {**base.model_dump(), **top}
    if factor != 1.0:
        for name in VECTOR_WEIGHTS:
            merged[name] = merged[name] * factor
        for over in by_intent.values():
            for name in VECTOR_WEIGHTS:
                if name in over:
                    over[name] = over[name] * factor
    return RankWeights.model_validate({**merged, "by_intent": by_intent})


def label(setting: Setting) -> str:
    return (
        " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in setting.items())
        or "current weights"
    )


def with_current(settings: list[Setting], base: RankWeights) -> tuple[list[Setting], int]:
    """The settings, with the current weights (``base``) added first unless the grid holds
    them, and the index of the current weights."""
    current = base.model_dump()
    for i, setting in enumerate(settings):
        if weights_for(setting, base).model_dump() == current:
            return settings, i
    return [{}, *settings], 0
