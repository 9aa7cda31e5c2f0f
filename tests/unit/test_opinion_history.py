"""'How has A's opinion of B changed?': the router flags it, and the extractive answer lists
the holder's claims about the target in time order, dated, old → new."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cogmem.answer import extractive_answer, opinion_history
from cogmem.models import Evidence
from cogmem.retrieval.router import EntityRef, RuleRouter

pytestmark = pytest.mark.unit

PERSONS = [EntityRef(name="Priya"), EntityRef(name="Marco")]


def claim(i: int, quote: str, at: datetime, status: str, **kw: object) -> Evidence:
    base = dict(
        record_id=f"c{i}",
        type="Claim",
        content=quote.replace("I think", "Priya thinks"),
        quote=quote,
        speaker="Priya",
        turn_source_id=f"D{i}:1",
        turn_at=at,
        status=status,
        score=1.0 / i,
    )
    base.update(kw)
    return Evidence(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("question", "history"),
    [
        ("How has Priya's opinion of Marco changed?", True),
        ("How did Priya's view of Marco evolve over time?", True),
        ("What does Priya think of Marco now?", False),
        ("What does Priya think of Marco?", False),
    ],
)
def test_the_router_flags_history_questions(question: str, history: bool) -> None:
    plan = RuleRouter().plan(question, PERSONS)
    assert plan.wants_history is history
    assert (plan.opinion_source, plan.opinion_target) == ("Priya", "Marco")


def test_the_history_lists_the_claims_old_to_new_with_dates() -> None:
    plan = RuleRouter().plan("How has Priya's opinion of Marco changed?", PERSONS)
    march, april, may = (datetime(2024, m, 10, tzinfo=UTC) for m in (3, 4, 5))
    evidence = [  # ranked newest first, as the ranker puts the CURRENT claim first
        claim(1, "I think Marco is so reliable now.", may, "CURRENT"),
        claim(2, "I think Marco is lazy.", march, "SUPERSEDED"),
        claim(3, "I think Tomás is brave.", april, "CURRENT"),  # another target
        claim(4, "Marco is great.", april, "CURRENT", speaker="Tomás"),  # another holder
    ]
    evidence[0].supersedes = ['"I think Marco is clumsy." (D9:2, 10 April 2024)']
    text = extractive_answer(plan, evidence)
    assert text == opinion_history(plan, evidence)
    lazy, clumsy, reliable = (
        text.index("Marco is lazy"),
        text.index("Marco is clumsy"),
        text.index("Marco is so reliable"),
    )
    assert lazy < clumsy < reliable  # old → new
    assert "10 March 2024" in text and "10 May 2024" in text and "D9:2" in text
    assert "Tomás" not in text


def test_without_claims_about_the_target_there_is_no_history() -> None:
    plan = RuleRouter().plan("How has Priya's opinion of Marco changed?", PERSONS)
    other = claim(1, "I think Tomás is brave.", datetime(2024, 4, 1, tzinfo=UTC), "CURRENT")
    assert opinion_history(plan, [other]) is None
