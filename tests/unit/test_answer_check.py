"""An LLM answer is kept only when it holds against the records it was shown."""

from __future__ import annotations

import pytest

from cogmem.answer_check import check_answer, cited_turns

pytestmark = pytest.mark.unit

EVIDENCE = (
    '[1] Event · Priya · turn D1:1 · said 2 March 2024 · refers to 2 March 2024 ("last Saturday")\n'
    '    quote: "I adopted a rescue dog called Biscuit last Saturday."\n'
    "[2] Event · Tomas · turn D1:2 · said 4 March 2024\n"
    '    quote: "I started learning the cello in January."'
)
IDS = ["D1:1", "D1:2"]
QUESTION = "What is the name of Priya's dog?"


def check(answer: str, question: str = QUESTION) -> tuple[bool, str]:
    result = check_answer(answer, question, EVIDENCE, IDS)
    return result.holds, result.reason


def test_a_grounded_answer_with_a_citation_holds() -> None:
    holds, reason = check("Priya's dog is called Biscuit [D1:1].")
    assert holds, reason


def test_a_grounded_answer_without_a_citation_holds() -> None:
    assert check("Biscuit, a rescue dog Priya adopted on 2 March 2024.")[0]


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("", "empty"),
        ("Priya's dog is called Biscuit [D7:3].", "not shown: D7:3"),
        ("I don't know from these records.", "does not know"),
        ("The dog is named Rex, a golden retriever from Berlin.", "occur in the records"),
        ("The name of Priya's dog.", "restates the question"),
    ],
)
def test_answers_that_do_not_hold(answer: str, why: str) -> None:
    holds, reason = check(answer)
    assert not holds
    assert why in reason


def test_no_records_means_no_llm_answer() -> None:
    result = check_answer("Biscuit.", QUESTION, "", [])
    assert not result.holds and "no records" in result.reason


def test_cited_turns_reads_single_and_grouped_citations() -> None:
    text = "Biscuit [D1:1]; the cello [D1:2, D3:14] and again [D1:1]. Not [4:] nor [note]."
    assert cited_turns(text) == ["D1:1", "D1:2", "D3:14"]
