"""The Lucene queries the cold path sends: the group's key required, words as data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from cogmem.ingest.ids import group_key, said_key
from cogmem.retrieval.lucene import lucene_query

pytestmark = pytest.mark.unit


def test_the_group_key_is_required_unscored_and_any_word_may_match() -> None:
    query = lucene_query("alice", ["pottery", "class"], ["search_text"])
    assert query == f"+group_key:{group_key('alice')}^0 +(search_text:(pottery class))"


def test_records_are_matched_on_content_and_name() -> None:
    query = lucene_query("bob", ["dog"], ["content", "name"])
    assert query == f"+group_key:{group_key('bob')}^0 +(content:(dog) name:(dog))"


def test_lucene_syntax_in_words_is_escaped() -> None:
    query = lucene_query("g", ["a:b", "c*", "(x)", 'say"hi"', "a&&b", "-n", "k~2"], ["f"])
    assert query is not None
    body = query.split(" +(f:(", 1)[1]
    for raw, escaped in (
        ("a:b", r"a\:b"),
        ("c*", r"c\*"),
        ("(x)", r"\(x\)"),
        ('say"hi"', r"say\"hi\""),
        ("a&&b", r"a\&\&b"),
        ("-n", r"\-n"),
        ("k~2", r"k\~2"),
    ):
        assert escaped in body, raw


def test_no_words_no_query() -> None:
    assert lucene_query("g", [], ["search_text"]) is None
    assert lucene_query("g", ["", ""], ["search_text"]) is None


def test_as_of_a_time_the_day_key_is_required_unscored_up_to_the_utc_day() -> None:
    berlin = datetime(2025, 3, 30, 0, 30, tzinfo=timezone(timedelta(hours=1)))
    query = lucene_query("alice", ["pottery"], ["search_text"], said_by=berlin)
    assert query == (
        f"+group_key:{group_key('alice')}^0 +said_key:[* TO d20250329]^0 +(search_text:(pottery))"
    )


def test_the_days_own_query_keeps_that_utc_day_alone() -> None:
    """turn_df takes off a day's matches said after the time: only that day is asked."""
    berlin = datetime(2025, 3, 30, 0, 30, tzinfo=timezone(timedelta(hours=1)))
    query = lucene_query("alice", ["pottery"], ["search_text"], said_by=berlin, day_only=True)
    assert query == (
        f"+group_key:{group_key('alice')}^0 +said_key:d20250329^0 +(search_text:(pottery))"
    )


def test_the_day_key_is_the_utc_date_and_a_naive_time_is_utc() -> None:
    assert said_key(datetime(2025, 3, 30, 23, 30, tzinfo=timezone(timedelta(hours=-5)))) == (
        "d20250331"
    )
    assert said_key(datetime(2025, 3, 30, 23, 30)) == "d20250330"
    assert said_key(datetime(1969, 12, 31, tzinfo=UTC)) == "d19691231"
