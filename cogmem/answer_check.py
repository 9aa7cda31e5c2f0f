"""Does an LLM's answer hold against the evidence it was given?

A small model answers fluently and wrongly; cogmem keeps an LLM answer only when it rests on
the records it was shown, and else gives the extractive answer (made only of what was said).
:func:`check_answer` is a word-level test, cheap and offline, not a judge of truth:

- the answer is not empty, and does not say it does not know while records were shown;
- every turn id it cites (``[D3:4]``) is one of the records shown;
- most of its content words (stemmed, stopwords out) occur in the records or the question
  (:data:`SUPPORT_SHARE`): an answer made of words found nowhere in the evidence is made up;
- it brings something from the records (a cited turn, or a content word the question
  does not have): an answer that only rephrases the question says nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer
from pydantic import BaseModel, Field

from cogmem.text import STOPWORDS

SUPPORT_SHARE = 0.6
"""The share of an answer's content words that must occur in the evidence or question."""

_WORD = re.compile(r"[A-Za-z0-9]+")
_CITATION = re.compile(r"\[([^\[\]\n]{1,80})\]")
_TURN_ID = re.compile(r"[\w.-]+:\d+")
_DONT_KNOW = re.compile(
    r"\b(?:do not|don't|dont|cannot|can't|can not) (?:know|tell|say|determine|find)\b|"
    r"\bnot (?:mentioned|stated|specified|provided|clear)\b|"
    r"\bno (?:information|mention|record|records|evidence)\b|\bunknown\b",
    re.IGNORECASE,
)
_STEMMER = snowballstemmer.stemmer("porter")


@lru_cache(maxsize=50_000)
def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def content_stems(text: str) -> set[str]:
    """Stemmed content words: lower-cased, stopwords and one-letter words out."""
    return {
        _stem(w)
        for w in (raw.lower() for raw in _WORD.findall(text))
        if len(w) > 1 and w not in STOPWORDS
    }


def cited_turns(text: str) -> list[str]:
    """The turn ids an answer cites in brackets (``[D3:4]``, ``[D3:4, D5:1]``), in order."""
    found: dict[str, None] = {}
    for group in _CITATION.findall(text):
        for token in _TURN_ID.findall(group):
            found.setdefault(token, None)
    return list(found)


class AnswerCheck(BaseModel):
    """Whether an LLM answer holds against its evidence, and why (not)."""

    holds: bool
    reason: str
    support: float = 0.0  # share of the answer's content words found in evidence or question
    cited: list[str] = Field(default_factory=list)  # cited turn ids that are in the evidence
    unknown: list[str] = Field(default_factory=list)  # cited turn ids that are not


def check_answer(
    answer: str, question: str, evidence_text: str, turn_ids: list[str]
) -> AnswerCheck:
    """``answer`` against the records shown to the LLM (``evidence_text``, the packed block,
    and the ``turn_ids`` of its records)."""
    text = answer.strip()
    if not text:
        return AnswerCheck(holds=False, reason="the answer is empty")
    if not evidence_text.strip() or not turn_ids:
        return AnswerCheck(holds=False, reason="no records were shown to ground it")
    known = set(turn_ids)
    citations = cited_turns(text)
    cited = [c for c in citations if c in known]
    unknown = [c for c in citations if c not in known]
    if unknown:
        return AnswerCheck(
            holds=False,
            reason=f"it cites turns that were not shown: {', '.join(unknown[:5])}",
            cited=cited,
            unknown=unknown,
        )
    if _DONT_KNOW.search(text):
        return AnswerCheck(
            holds=False, reason="it says it does not know, with records shown", cited=cited
        )
    words = content_stems(_CITATION.sub(" ", text))
    if not words:
        return AnswerCheck(holds=False, reason="it has no content words", cited=cited)
    asked = content_stems(question)
    shown = content_stems(evidence_text)
    support = len(words & (shown | asked)) / len(words)
    if support < SUPPORT_SHARE:
        return AnswerCheck(
            holds=False,
            reason=f"{support:.0%} of its words occur in the records or the question "
            f"(needs {SUPPORT_SHARE:.0%})",
            support=support,
            cited=cited,
        )
    if not cited and not (words & shown) - asked:
        return AnswerCheck(
            holds=False,
            reason="it only restates the question",
            support=support,
            cited=cited,
        )
    return AnswerCheck(
        holds=True,
        reason=f"{support:.0%} of its words occur in the records or the question",
        support=support,
        cited=cited,
    )
