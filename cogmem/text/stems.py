"""A crude stemmer and the content words of a text, for telling whether two sentences
speak of the same thing ("renew my passport" / "I finally renewed it")."""

from __future__ import annotations

from cogmem.text.sentences import WORD
from cogmem.text.stopwords import STOPWORDS

_SUFFIXES = ("ing", "ed", "es", "s", "e")


def stem(word: str) -> str:
    """ "renewed", "renewing", "renews", "renew" → "renew"; "moved", "move" → "mov"."""
    w = word.lower()
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def content_stems(text: str) -> set[str]:
    """The stems of the words of ``text`` that are not stopwords (three letters or more)."""
    return {stem(w) for w in WORD.findall(text) if len(w) > 2 and w.lower() not in STOPWORDS}


GENERIC = frozenset(
    stem(w)
    for w in "finally already just really still anymore more time today yesterday week month "
    "year last next ago days weeks months years going planning need want will".split()
)
"""Stems that say when or how sure, not what: two sentences sharing only these speak of
different things."""


def topic_stems(text: str) -> set[str]:
    """The content stems of ``text`` that name a thing or an action (:data:`GENERIC` out)."""
    return content_stems(text) - GENERIC
