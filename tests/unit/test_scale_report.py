"""The scale bench's report shows each round of the cold questions beside the pooled p95."""

from __future__ import annotations

import pytest

from cogmem.bench.scale import OperatorLatency, ScaleReport, SizePoint
from cogmem.bench.scale_report import markdown

pytestmark = pytest.mark.unit


def test_each_round_of_the_cold_questions_is_reported_with_its_as_of_ratio() -> None:
    point = SizePoint(
        records=1000,
        turns=700,
        ingest_turns_per_s=300.0,
        ingest_records_per_s=400.0,
        latency={
            op: OperatorLatency(p50_ms=10.0, p95_ms=20.0)
            for op in ("anchor", "traverse", "intersect", "ground", "search")
        }
        | {
            "cold_search": OperatorLatency(p50_ms=100.0, p95_ms=200.0),
            "cold_search_as_of": OperatorLatency(p50_ms=110.0, p95_ms=230.0),
        },
        store_mib=None,
        peak_rss_mib=500.0,
        cold_rounds=[
            {"search_p95_ms": 250.0, "search_as_of_p95_ms": 300.0},
            {"search_p95_ms": 180.0, "search_as_of_p95_ms": 190.0},
        ],
    )
    text = markdown(
        ScaleReport(sizes=[point], plans={}, embedder="h", queries_per_size=5, cold_rounds=2)
    )
    assert "asked 2 time(s) over" in text
    assert "| 1000 | 250 / 300 (×1.20) | 180 / 190 (×1.06) |" in text
    assert "| round 1 | round 2 |" in text
    assert "| 100 / 200 | 110 / 230 |" in text  # the pooled p50 / p95, over every round
