"""Records of sentences that hold an abbreviation or a decimal ("Dr. Okafor", "7 p.m.",
"Washington D.C.", "1.50"): each record quotes its whole sentence.

``tests/data/own/dana_felix.jsonl`` was written before the sentence splitter changed (issue
52, part 5). With the regular expression before, its records quoted "I have to do physio at
the clinic on St.", "My pottery class moved to 7 p." and "And parking there was only 1.",
and Felix's "I think Dr. Okafor is …" lost its "I think" to a sentence of its own, so no
opinion was recorded; now it is a regression test.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cogmem.api import Memory
from cogmem.config import Settings

pytestmark = pytest.mark.integration

CHAT = Path(__file__).resolve().parent.parent / "data" / "own" / "dana_felix.jsonl"
CUT = ("Dr.", "St.", "Mt.", "Ave.", " p.", " D.", " 1.")


@pytest.fixture(scope="module")
def records(neo4j_settings: Settings) -> Iterator[list[dict[str, Any]]]:
    group = f"test-sentences-{uuid.uuid4().hex[:8]}"
    settings = neo4j_settings.model_copy(update={"group": group, "llm": "none"})
    with Memory(settings) as mem:
        try:
            mem.ingest(CHAT)
            yield [r for r in mem.inspect.records() if r.get("quote")]
        finally:
            mem.forget()


def test_no_record_quotes_a_sentence_cut_at_an_abbreviation(
    records: list[dict[str, Any]],
) -> None:
    assert records
    cut = [r["quote"] for r in records if r["quote"].rstrip().endswith(CUT)]
    assert cut == []
    assert not any(r["quote"].startswith(("Okafor", "50 ", "Phil")) for r in records)


def test_an_opinion_about_a_doctor_keeps_its_cue_and_is_a_claim(
    records: list[dict[str, Any]],
) -> None:
    claims = [r for r in records if r["type"] == "Claim" and r["speaker"] == "Felix"]
    assert [r["quote"] for r in claims] == [
        "I think Dr. Okafor is the most patient doctor in the whole city."
    ]


@pytest.mark.parametrize(
    "whole",
    [
        "I have to do physio at the clinic on St. Mark's Road twice a week.",
        "My pottery class moved to 7 p.m. on Thursdays, so Wednesdays are free now.",
        "And parking there was only 1.50 for two hours, a real bargain.",
        "My sister moved to Washington D.C. for a job at the Smithsonian, by the way.",
    ],
)
def test_a_record_quotes_its_whole_sentence(records: list[dict[str, Any]], whole: str) -> None:
    assert whole in {r["quote"] for r in records}
