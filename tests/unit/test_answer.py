from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cogmem.answer import estimate_tokens, extractive_answer, pack, referenced_time, render
from cogmem.models import Evidence
from cogmem.retrieval.router import Plan

pytestmark = pytest.mark.unit


def ev(i: int, score: float, text: str, **kw: object) -> Evidence:
    base = dict(
        record_id=f"r{i}",
        type="Event",
        content=text,
        quote=text,
        speaker="Ann",
        turn_id=f"t{i}",
        turn_source_id=f"D1:{i}",
        turn_text=text,
        turn_at=datetime(2023, 5, 8, 13, 0, tzinfo=UTC),
        score=score,
    )
    base.update(kw)
    return Evidence(**base)  # type: ignore[arg-type]


def test_token_estimate_is_monotone_and_sane() -> None:
    assert estimate_tokens("") == 0
    short, long = estimate_tokens("hello world"), estimate_tokens("hello world " * 50)
    assert 1 <= short < long
    assert 80 <= estimate_tokens("word " * 100) <= 140


def test_pack_is_greedy_by_score_and_respects_the_budget() -> None:
    items = [ev(1, 0.2, "low " * 5), ev(2, 0.9, "high " * 40), ev(3, 0.5, "mid " * 5)]
    block = pack(items, budget_tokens=estimate_tokens(render(1, items[1])) + 5)
    assert [e.record_id for e in block.included] == ["r2"]
    assert block.left_out == 2 and block.tokens <= block.budget
    roomy = pack(items, budget_tokens=10_000)
    assert [e.record_id for e in roomy.included] == ["r2", "r3", "r1"]
    assert pack(items, budget_tokens=0).included == []


def test_render_shows_type_speaker_turn_quote_and_times() -> None:
    item = ev(
        4,
        1.0,
        "I went to the support group yesterday.",
        time_start=datetime(2023, 5, 7, tzinfo=UTC),
        time_end=datetime(2023, 5, 8, tzinfo=UTC),
        time_text="yesterday",
    )
    text = render(1, item)
    assert "Event" in text and "Ann" in text and "D1:4" in text
    assert "said 8 May 2023" in text and "refers to 7 May 2023" in text
    assert '"I went to the support group yesterday."' in text


def test_extractive_answer_resolves_dates_and_cites_turns() -> None:
    item = ev(
        3,
        1.0,
        "I went to the support group yesterday.",
        time_start=datetime(2023, 5, 7, tzinfo=UTC),
        time_end=datetime(2023, 5, 8, tzinfo=UTC),
        time_text="yesterday",
    )
    plan = Plan(
        question="When did Ann go to the support group?",
        intent="temporal",
        keywords=["ann", "support", "group"],
    )
    answer = extractive_answer(plan, [item])
    assert answer.startswith("7 May 2023") and "D1:3" in answer
    assert "don't know" in extractive_answer(plan, [])


# --------------------------------------------------------------------------- whole turns

PORTO = "We drove to Porto last weekend. Jonas came along."
LONG = (
    "Work has been hectic and I barely slept this month. "
    "I quit the choir. The rehearsals clashed with my night shifts. "
    + "Anyway, the garden is thriving, the tomatoes are enormous and the basil too. "
    * 12
)


def test_a_short_turn_is_shown_whole_in_the_block() -> None:
    item = ev(5, 1.0, "We drove to Porto last weekend.", turn_text=PORTO)
    block = pack([item], budget_tokens=10_000)
    assert "Jonas came along." in block.text
    assert block.tokens == estimate_tokens(block.text)


def test_a_long_turn_is_shown_as_the_quote_with_its_neighbours() -> None:
    item = ev(6, 1.0, "I quit the choir.", turn_text=LONG)
    text = pack([item], budget_tokens=10_000).text
    assert "I quit the choir." in text
    assert "The rehearsals clashed with my night shifts." in text  # the next sentence
    assert "I barely slept this month." in text  # the one before
    assert "tomatoes" not in text  # not the whole long turn


def test_a_tight_budget_falls_back_to_the_quote() -> None:
    item = ev(7, 1.0, "I quit the choir.", turn_text=LONG)
    bare = render(1, item, "I quit the choir.")
    block = pack([item], budget_tokens=estimate_tokens(bare))
    assert block.included == [item] and '"I quit the choir."' in block.text
    assert "night shifts" not in block.text


def test_a_turn_shown_whole_is_not_repeated() -> None:
    first = ev(8, 0.9, "We drove to Porto last weekend.", turn_text=PORTO, turn_id="t8")
    second = ev(9, 0.5, "Jonas came along.", turn_text=PORTO, turn_id="t8")
    block = pack([first, second], budget_tokens=10_000)
    assert len(block.included) == 2
    assert block.text.count("We drove to Porto") == 1


def test_extractive_answer_keeps_the_neighbour_that_answers() -> None:
    item = ev(10, 1.0, "We drove to Porto last weekend.", turn_text=PORTO)
    plan = Plan(question="Who did Ann drive to Porto with?", keywords=["ann", "porto"])
    assert "Jonas" in extractive_answer(plan, [item])
    choir = ev(11, 1.0, "I quit the choir.", turn_text=LONG)
    plan = Plan(question="Why did Ann quit the choir?", keywords=["ann", "quit", "choir"])
    assert "night shifts" in extractive_answer(plan, [choir])


def test_temporal_answer_takes_the_matching_record_and_a_neighbouring_date() -> None:
    # said on Monday 17 June 2024: "on Friday" in a scheduled present is 21 June 2024
    monday = datetime(2024, 6, 17, 19, 0, tzinfo=UTC)
    trip = ev(
        12,
        0.9,
        "Clara and I are spending a week in Lisbon.",
        turn_text="We fly out on Friday! Clara and I are spending a week in Lisbon.",
        turn_at=monday,
    )
    bike = ev(
        13,
        1.0,
        "Rita fixed my bike last week.",
        turn_at=monday,
        time_start=datetime(2024, 6, 10, tzinfo=UTC),
        time_end=datetime(2024, 6, 17, tzinfo=UTC),
        time_text="last week",
    )
    plan = Plan(
        question="When does Ann fly out to Lisbon?",
        intent="temporal",
        keywords=["ann", "fly", "lisbon"],
    )
    answer = extractive_answer(plan, [bike, trip])
    assert answer.startswith("21 June 2024") and "D1:12" in answer


def _claims() -> list[Evidence]:
    now = ev(
        14,
        1.0,
        "I think she is actually very reliable.",
        type="Claim",
        status="CURRENT",
        turn_text="Rita fixed my bike. I think she is actually very reliable.",
        supersedes=['"Honestly, Rita is so careless." (D1:3, 13 May 2024)'],
    )
    return [now]


def test_a_now_question_gets_the_current_view_only() -> None:
    plan = Plan(
        question="What does Ann think of Rita now?",
        intent="update",
        keywords=["ann", "think", "rita"],
    )
    answer = extractive_answer(plan, _claims())
    assert "reliable" in answer and "careless" not in answer
    changed = plan.model_copy(update={"question": "How has Ann's opinion of Rita changed?"})
    assert "careless" in extractive_answer(changed, _claims())


def test_an_unrelated_claim_does_not_answer() -> None:
    debt = ev(15, 0.8, "I still owe you 40 euros for the concert tickets.")
    plan = Plan(
        question="What does Ann still owe Bo?",
        intent="update",
        keywords=["ann", "owe", "bo"],
    )
    answer = extractive_answer(plan, [*_claims(), debt])
    assert "40 euros" in answer and "view" not in answer


@pytest.mark.parametrize(
    ("start", "end", "shown"),
    [
        # "three days ago" said at 18:40+01:00 on 20 May: 17 May, local midnight to midnight
        (
            datetime(2025, 5, 16, 23, 0, tzinfo=UTC),
            datetime(2025, 5, 17, 23, 0, tzinfo=UTC),
            "17 May 2025",
        ),
        # "in August" said in +01:00, and the same month resolved in UTC
        (
            datetime(2025, 7, 31, 23, 0, tzinfo=UTC),
            datetime(2025, 8, 31, 23, 0, tzinfo=UTC),
            "August 2025",
        ),
        (datetime(2025, 8, 1, tzinfo=UTC), datetime(2025, 9, 1, tzinfo=UTC), "August 2025"),
        # a day west of UTC (-05:00), and an instant late in a UTC day stays on its day
        (
            datetime(2025, 3, 8, 5, 0, tzinfo=UTC),
            datetime(2025, 3, 9, 5, 0, tzinfo=UTC),
            "8 March 2025",
        ),
        (
            datetime(2025, 3, 8, 22, 0, tzinfo=UTC),
            datetime(2025, 3, 8, 22, 0, tzinfo=UTC),
            "8 March 2025",
        ),
    ],
)
def test_a_referenced_day_is_named_by_the_local_calendar_it_was_resolved_on(
    start: datetime, end: datetime, shown: str
) -> None:
    ev = Evidence(record_id="r", type="Event", content="c", time_start=start, time_end=end)
    assert referenced_time(ev) == shown
