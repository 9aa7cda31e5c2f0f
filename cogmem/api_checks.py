"""The checks :class:`~cogmem.api.Memory` makes at its boundary, and the one-line errors
they raise (re-exported by :mod:`cogmem.api`)."""

from __future__ import annotations

from cogmem.config import ConfigError, check_group
from cogmem.store import StoreError


class QuestionError(ValueError):
    """A question that cannot be asked (empty); the message says so in one line."""


class LocalTimesError(StoreError):
    """A group holds times without a time zone (LOCAL DATETIME): `cogmem doctor --fix`."""


def valid_group(group: str) -> str:
    """``group`` trimmed, or :class:`ConfigError` naming what is wrong with it."""
    try:
        return check_group(group)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def check_question(question: str) -> str:
    """The question, or :class:`QuestionError` when there is nothing to ask."""
    if not isinstance(question, str) or not question.strip():
        raise QuestionError("the question is empty: ask something, e.g. 'Who did Priya meet?'")
    return question
