"""Sentence spans (cogmem.text.sentences): exact offsets, abbreviations and decimals kept
inside their sentence, every line's text kept."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogmem.retrieval.scoring import mostly_asks
from cogmem.text import sentences


def texts(text: str) -> list[str]:
    return [s.text for s in sentences(text)]


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("I think Dr. Okafor is the most patient doctor in town.", "Dr. Okafor is the most"),
        ("My class moved to 7 p.m. on Thursdays, so I'm free.", "7 p.m. on Thursdays"),
        ("Parking was only 1.50 for two hours.", "only 1.50 for two hours"),
        ("My sister moved to Washington D.C. for a job.", "Washington D.C. for a job"),
        ("Physio is at the clinic on St. Mark's Road.", "St. Mark's Road"),
    ],
)
def test_an_abbreviation_or_a_decimal_does_not_end_the_sentence(text: str, whole: str) -> None:
    # the regular expression before cut each of these at its first full stop
    assert len(sentences(text)) == 1
    assert whole in texts(text)[0]


def test_sentences_split_at_their_ends_and_at_line_breaks() -> None:
    assert texts("Finished the series. Loved it! Did you?") == [
        "Finished the series.",
        "Loved it!",
        "Did you?",
    ]
    assert texts("one thought\nanother one") == ["one thought", "another one"]


def test_a_line_without_a_full_stop_before_a_line_break_is_kept() -> None:
    # the regular expression before dropped the first line here
    text = "15 bucks on how many tomatoes is the question 🤔\nWhat cheese do you use?"
    assert texts(text) == [
        "15 bucks on how many tomatoes is the question 🤔",
        "What cheese do you use?",
    ]


def test_spans_are_exact_offsets_into_the_text() -> None:
    text = "  Café 😅 was great.   Next one, é!\n\n  lol ok... see you at 5 "
    spans = sentences(text)
    assert [s.text for s in spans] == [
        "Café 😅 was great.",
        "Next one, é!",
        "lol ok... see you at 5",
    ]
    assert all(text[s.start : s.end] == s.text for s in spans)


def test_pieces_without_a_letter_or_digit_are_left_out() -> None:
    assert texts("... !!! ?\n:)") == []
    assert texts("") == []


@given(st.text(max_size=200))
def test_every_span_is_the_text_at_its_offsets(text: str) -> None:
    spans = sentences(text)
    assert all(text[s.start : s.end] == s.text == s.text.strip() for s in spans)
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))


def test_a_turn_that_mostly_asks_counts_sentences_past_abbreviations() -> None:
    # "Dr." no longer makes two statements of one: one statement, one question
    assert mostly_asks("I saw Dr. Okafor today. Have you met her?")
    assert not mostly_asks("I saw Dr. Okafor today. She was kind. Have you met her?")
