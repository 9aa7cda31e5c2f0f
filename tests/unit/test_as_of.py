"""Reading ``as_of`` times, and the scope a question's own time words give it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from cogmem.retrieval.router import RuleRouter
from cogmem.retrieval.scope import question_scope, scope_end
from cogmem.temporal.as_of import AsOfError, describe_as_of, parse_as_of

END_OF_1_MARCH = datetime(2024, 3, 2, tzinfo=UTC) - timedelta(microseconds=1)


@pytest.mark.parametrize(
    "text",
    ["2024-03-01", "1 March 2024", "1st March 2024", "March 1, 2024", "1 Mar 2024", "2024/03/01"],
)
def test_a_date_means_the_end_of_that_day(text: str) -> None:
    assert parse_as_of(text) == END_OF_1_MARCH


def test_times_months_and_years() -> None:
    assert parse_as_of("2024-03-01T14:00:00Z") == datetime(2024, 3, 1, 14, tzinfo=UTC)
    assert parse_as_of("2024-03-01 14:00+02:00") == datetime(2024, 3, 1, 12, tzinfo=UTC)
    assert parse_as_of("2024-03-01T14:00") == datetime(2024, 3, 1, 14, tzinfo=UTC)  # naive: UTC
    assert parse_as_of("February 2024") == datetime(2024, 3, 1, tzinfo=UTC) - timedelta(
        microseconds=1
    )
    assert parse_as_of("2023") == datetime(2024, 1, 1, tzinfo=UTC) - timedelta(microseconds=1)
    assert parse_as_of(date(2024, 3, 1)) == END_OF_1_MARCH
    aware = datetime(2024, 3, 1, 9, tzinfo=timezone(timedelta(hours=-5)))
    assert parse_as_of(aware) == datetime(2024, 3, 1, 14, tzinfo=UTC)
    assert parse_as_of(None) is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("soonish", "cannot read"),
        ("", "empty"),
        ("2024-02-30", "not a valid ISO"),
        ("31 February 2024", "no such day"),
        ("1 Smarch 2024", "not a month"),
    ],
)
def test_unreadable_times_are_refused(text: str, why: str) -> None:
    with pytest.raises(AsOfError, match=why):
        parse_as_of(text)


def test_an_answer_names_its_time() -> None:
    assert describe_as_of(END_OF_1_MARCH) == "1 March 2024"
    assert describe_as_of(datetime(2024, 3, 1, 14, 5, tzinfo=UTC)) == "1 March 2024 14:05 UTC"


LATEST = datetime(2024, 8, 2, 9, tzinfo=UTC)
PERSONS = [{"name": "Lena"}, {"name": "Jonas"}, {"name": "Mateo"}]


def _scope(question: str) -> datetime | None:
    from cogmem.retrieval.router import EntityRef

    plan = RuleRouter().plan(question, [EntityRef(name=p["name"]) for p in PERSONS])
    window = question_scope(plan, question, lambda: LATEST)
    return None if window is None else scope_end(window)


def test_a_past_opinion_in_a_month_looks_back_to_its_end() -> None:
    end = _scope("What did Lena think of Jonas in May?")
    assert end == datetime(2024, 6, 1, tzinfo=UTC) - timedelta(microseconds=1)
    assert _scope("What did Lena think of Jonas in March 2023?") == datetime(
        2023, 4, 1, tzinfo=UTC
    ) - timedelta(microseconds=1)
    assert _scope("What was Mateo planning in January?") == datetime(
        2024, 2, 1, tzinfo=UTC
    ) - timedelta(microseconds=1)


@pytest.mark.parametrize(
    "question",
    [
        "What does Lena think of Jonas?",  # now
        "When did Lena renew her passport?",  # asks when: keeps its window
        "What does Lena think of the trip in June?",  # the trip's time, not the question's
        "What did Mateo do in May?",  # what happened then, not what held
    ],
)
def test_other_questions_have_no_scope(question: str) -> None:
    assert _scope(question) is None
