"""The Extractor protocol, the running context of a conversation, and the quote check."""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Protocol

from rapidfuzz import fuzz

from cogmem.models import ExtractedRecord, Extraction, RecordType, Turn

NAMED_KEPT = 3
"""Persons named lately that a pronoun may refer to: the latest, and two before it for when
the latest is the one speaking or spoken to."""


class Extractor(Protocol):
    name: str

    def extract(self, turn: Turn, ctx: ExtractionContext) -> Extraction: ...


@dataclass
class ExtractionContext:
    """What an extractor knows while it walks a conversation in order.

    Person names are resolved per group: speakers are canonical; a shorter form is an
    alias when the conversation shows it (a vocative "Thanks, Mel!" addressed to Melanie),
    and near-duplicates ("Carolin") fold into a known name by fuzzy ratio.
    """

    speakers: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
    persons: set[str] = field(default_factory=set)
    previous: deque[ExtractedRecord] = field(default_factory=lambda: deque(maxlen=40))
    last_speaker: str | None = None
    last_person: str | None = None
    """The person a third-person pronoun ("she", "him", "they") refers to: the one named
    last (across sentences, turns and speakers), or the subject when a sentence opens with
    a name."""
    named: deque[str] = field(default_factory=lambda: deque(maxlen=NAMED_KEPT))
    """The persons named lately, the latest last (``last_person`` is the latest): when the
    latest is the one speaking, a pronoun refers to the one named before."""
    fuzzy_threshold: float = 90.0
    addressed: Counter[tuple[str, str]] = field(default_factory=Counter)
    """How often each speaker called the listener by a name not theirs ("Thanks Tom!"),
    counted by a discovery pass and settled by :meth:`settle_addressed`."""

    def __post_init__(self) -> None:
        self.persons.update(self.speakers)

    # -- names -------------------------------------------------------------------------
    def is_alias_of(self, name: str, canonical: str) -> bool:
        a, b = name.lower(), canonical.lower()
        if a == b:
            return True
        if len(a) >= 3 and b.startswith(a):
            return True
        return fuzz.ratio(a, b) >= self.fuzzy_threshold

    def learn_alias(self, alias: str, canonical: str) -> None:
        if alias.lower() != canonical.lower():
            self.aliases[alias.lower()] = canonical

    def canonical(self, name: str) -> str:
        name = name.strip()
        hit = self.aliases.get(name.lower())
        if hit:
            return hit
        for known in sorted(self.persons, key=len, reverse=True):
            if known.lower() == name.lower():
                return known
        for speaker in self.speakers:
            if self.is_alias_of(name, speaker):
                self.learn_alias(name, speaker)
                return speaker
        for known in self.persons:
            if fuzz.ratio(name.lower(), known.lower()) >= self.fuzzy_threshold:
                self.learn_alias(name, known)
                return known
        return name

    def settle_addressed(self, times: int = 2) -> None:
        """In a chat of two, a name one speaker calls the other by ``times`` or more ("Hey
        Sarah!", "You'll crush it, Sarah!"), and that the other never calls anyone, is the
        other's: a real name behind a display name, or a nickname that is not a shortening.
        Once is not enough: a greeting can name someone else present."""
        if len(self.speakers) != 2:
            return
        for (speaker, name), n in self.addressed.items():
            listeners = [s for s in self.speakers if s != speaker]
            if (
                len(listeners) == 1
                and n >= times
                and not self.addressed.get((listeners[0], name))
                and name.lower() not in self.aliases
                and name not in self.speakers
            ):
                self.learn_alias(name, listeners[0])

    def learn_person(self, name: str | None) -> None:
        """A single capitalised name becomes known ("Max"); "my sister" does not."""
        if name and " " not in name and name[:1].isupper():
            self.persons.add(name)

    def known_names(self) -> list[str]:
        names = set(self.persons) | set(self.aliases)
        shown = {n if n in self.persons else n.title() for n in names}
        return sorted(shown, key=len, reverse=True)

    def addressee_of(self, turn: Turn) -> str | None:
        """Who "you" means in this turn: the other speaker of a two-person chat, else the
        previous speaker when it differs."""
        speaker = self.canonical(turn.speaker)
        others = [s for s in self.speakers if s != speaker]
        if len(others) == 1:
            return others[0]
        if self.last_speaker and self.last_speaker != speaker:
            return self.last_speaker
        return None

    def note_named(self, named: list[str], subject: str | None = None) -> None:
        """A sentence named these persons (in order): the subject, else the last, becomes the
        antecedent of the next pronoun."""
        latest = subject if subject is not None else (named[-1] if named else None)
        if latest is None:
            return
        for name in (*[n for n in named if n != latest], latest):
            if name in self.named:
                self.named.remove(name)
            self.named.append(name)
        self.last_person = latest

    def antecedent(self, *exclude: str | None) -> str | None:
        """The person a pronoun refers to now: the one named last by either speaker, but
        never one of ``exclude`` (the speaker, who says "I", or the addressee, who is
        "you"), for whom the one named before stands in."""
        if self.last_person is not None and self.last_person not in exclude:
            return self.last_person
        return next((n for n in reversed(self.named) if n not in exclude), None)

    def observe(self, turn: Turn, extraction: Extraction) -> None:
        """Take in a turn's records: new persons become known names."""
        for record in extraction.records:
            if record.type is RecordType.PERSON:
                self.learn_person(record.name)
            self.previous.append(record)
        self.last_speaker = self.canonical(turn.speaker)


def check_quotes(turn: Turn, extraction: Extraction) -> Extraction:
    """Drop (and count) every record whose quote is not an exact substring of its turn."""
    text = turn.full_text
    kept = [r for r in extraction.records if r.quote and r.quote in text]
    dropped = extraction.dropped + len(extraction.records) - len(kept)
    return Extraction(records=kept, dropped=dropped, fallback=extraction.fallback)
