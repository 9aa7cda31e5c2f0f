"""Word lists shared by extraction and consolidation: the sentiment adjectives. Plain data."""

from __future__ import annotations


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``, as a set."""
    return frozenset(text.split())


POSITIVE = word_set(
    """
    amazing awesome beautiful brave brilliant caring cool courageous creative dedicated
    excellent fantastic fun generous genius gifted good great happy hardworking hard-working
    helpful honest impressive incredible inspiring inspirational kind lovely lucky nice
    passionate patient perfect proud respectful smart strong supportive sweet talented
    thoughtful valuable wonderful wise admirable awesome resilient fearless skilled skillful
    determined motivated motivating insightful exciting cute adorable gorgeous stunning
    """
)

NEGATIVE = word_set(
    """
    annoying arrogant awful bad boring careless cruel dishonest dumb irresponsible jealous
    lazy mean messy rude selfish sloppy stubborn stupid terrible toxic unfair unreliable
    unhelpful weak wrong crazy horrible disappointing disappointed frustrating frustrated
    unprofessional useless pathetic hateful boring sad upset angry scary overrated
    """
)
