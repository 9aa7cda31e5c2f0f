"""The seeded generator: chains of two-person conversations in which each person tells their
own records and passes on opinions about the previous person's."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from cogmem.bench.collapse.templates import (
    EVENT_FORMS,
    EVENT_PHRASES,
    GOODBYES,
    GOSSIP_REACTIONS,
    GREETINGS,
    NAMES,
    OPINION_FORMS,
    OPINION_LEADS,
    OPINION_QUESTION_FORMS,
    POSITIVE_FORMS,
    REACTIONS,
    RECORD_LEADS,
    RECORD_QUESTION_FORMS,
    SMALL_TALK,
    SURNAMES,
    TIMES,
    TOPICS,
    Topic,
)
from cogmem.models import Conversation, Turn

RECORDS_PER_PERSON = 2
CHAIN_CONVERSATIONS = 6  # persons per chain = conversations + 1; pairs per chain = (n-1)*r


@dataclass(frozen=True)
class Pair:
    id: str
    topic: str
    owner: str  # whose record it is (A)
    holder: str  # who holds the opinion (B)
    record: str  # the record sentence, verbatim in its turn
    opinion: str  # the opinion sentence, verbatim in its turn
    sentiment: Literal["positive", "negative"]
    record_turn: str  # source id of the turn, unique in the corpus
    opinion_turn: str
    record_question: str
    record_question_kind: Literal["time", "topic"]
    opinion_question: str
    opinion_form: Literal["thing", "event"] = "thing"


@dataclass(frozen=True)
class ProbeTurn:
    source_id: str
    speaker: str
    text: str


@dataclass(frozen=True)
class ProbeConversation:
    id: str
    speakers: tuple[str, str]
    turns: tuple[ProbeTurn, ...]
    start: datetime

    def to_conversation(self) -> Conversation:
        return Conversation(
            id=self.id,
            speakers=list(self.speakers),
            turns=[
                Turn(
                    conversation=self.id,
                    session="1",
                    session_index=1,
                    index=i,
                    source_id=t.source_id,
                    speaker=t.speaker,
                    text=t.text,
                    at=self.start + timedelta(minutes=3 * i),
                )
                for i, t in enumerate(self.turns)
            ],
            source_format="bench-collapse",
        )


@dataclass(frozen=True)
class Corpus:
    seed: int
    conversations: tuple[ProbeConversation, ...]
    pairs: tuple[Pair, ...]

    def turns(self) -> list[ProbeTurn]:
        return [t for c in self.conversations for t in c.turns]


def _names(count: int, rng: random.Random) -> list[str]:
    pool = list(NAMES)
    rng.shuffle(pool)
    if count <= len(pool):
        return pool[:count]
    out = list(pool)
    for extra in range(count - len(pool)):
        out.append(f"{pool[extra % len(pool)]} {SURNAMES[(extra // len(pool)) % len(SURNAMES)]}")
    return out


def capitalise(text: str) -> str:
    """``text`` with its first letter in upper case."""
    return text[:1].upper() + text[1:] if text else text


def generate_corpus(pairs: int = 150, seed: int = 0) -> Corpus:
    """At least ``pairs`` matched pairs (exactly ``pairs`` are kept), seeded."""
    if pairs < 1:
        raise ValueError("pairs must be >= 1")
    rng = random.Random(f"cogmem-collapse:{seed}")
    per_chain = (CHAIN_CONVERSATIONS - 1) * RECORDS_PER_PERSON
    chains = -(-pairs // per_chain)
    names = _names(chains * (CHAIN_CONVERSATIONS + 1), rng)
    conversations: list[ProbeConversation] = []
    out_pairs: list[Pair] = []
    start = datetime(2024, 5, 6, 18, 0, tzinfo=UTC)
    for c in range(chains):
        people = names[c * (CHAIN_CONVERSATIONS + 1) : (c + 1) * (CHAIN_CONVERSATIONS + 1)]
        previous: list[tuple[Topic, str, str, str]] = []  # what P_{k-1} told: topic, x, time, id
        for k in range(CHAIN_CONVERSATIONS):
            teller, listener = people[k], people[k + 1]
            absent = people[k - 1] if k > 0 else None
            cid = f"collapse-s{seed}-c{c:02d}-k{k}"
            topics = rng.sample(TOPICS, RECORDS_PER_PERSON)
            times = rng.sample(TIMES, RECORDS_PER_PERSON)
            own = [(t, rng.choice(t.options), when) for t, when in zip(topics, times, strict=True)]
            # the beats of the conversation, shuffled a little: own records and opinions
            beats: list[tuple[str, Any]] = [("record", r) for r in own]
            beats += [("opinion", p) for p in previous]
            rng.shuffle(beats)
            beats.insert(rng.randint(0, len(beats)), ("small-talk", None))
            turns: list[ProbeTurn] = []

            def add(speaker: str, text: str, cid: str = cid, turns: list[ProbeTurn] = turns) -> str:
                sid = f"{cid}:T{len(turns) + 1}"
                turns.append(ProbeTurn(sid, speaker, text))
                return sid

            add(teller, rng.choice(GREETINGS).format(b=listener))
            add(listener, rng.choice(SMALL_TALK))
            told: list[tuple[Topic, str, str, str]] = []
            for kind, item in beats:
                if kind == "record":
                    topic, x, when = item
                    sentence = capitalise(topic.record.format(x=x, time=when))
                    lead = rng.choice(RECORD_LEADS)
                    sid = add(teller, f"{lead} {sentence}.".strip())
                    told.append((topic, x, when, sid))
                    add(listener, rng.choice(REACTIONS))
                elif kind == "opinion":
                    assert absent is not None
                    topic, x, when, record_sid = item
                    sentiment: Literal["positive", "negative"] = rng.choice(
                        ("positive", "negative")
                    )
                    adj = rng.choice(topic.positive if sentiment == "positive" else topic.negative)
                    thing = topic.thing.format(x=x)
                    restates = rng.random() < 0.5
                    if restates:
                        opinion = rng.choice(EVENT_FORMS).format(
                            a=absent,
                            event=EVENT_PHRASES[topic.name].format(x=x),
                            time=when,
                            adj=adj,
                        )
                    else:
                        forms = POSITIVE_FORMS if sentiment == "positive" else OPINION_FORMS
                        opinion = rng.choice(forms).format(a=absent, thing=thing, adj=adj)
                    lead = rng.choice(OPINION_LEADS).format(a=absent)
                    if lead.endswith(",") and not opinion.startswith("I "):
                        opinion = opinion[:1].lower() + opinion[1:]
                    sid = add(teller, f"{lead} {opinion}.".strip())
                    record_sentence = capitalise(topic.record.format(x=x, time=when))
                    use_time = rng.random() < 0.5
                    record_q = (
                        rng.choice(RECORD_QUESTION_FORMS).format(a=absent, time=when)
                        if use_time
                        else topic.question.format(a=absent)
                    )
                    out_pairs.append(
                        Pair(
                            id=f"pair-{len(out_pairs) + 1:03d}",
                            topic=topic.name,
                            owner=absent,
                            holder=teller,
                            record=record_sentence,
                            opinion=opinion,
                            sentiment=sentiment,
                            record_turn=record_sid,
                            opinion_turn=sid,
                            record_question=record_q,
                            record_question_kind="time" if use_time else "topic",
                            opinion_question=rng.choice(OPINION_QUESTION_FORMS).format(
                                b=teller, a=absent, thing=thing
                            ),
                            opinion_form="event" if restates else "thing",
                        )
                    )
                    add(listener, rng.choice(GOSSIP_REACTIONS))
                else:
                    add(teller, "Anyway, enough about everyone else. How's your family?")
                    add(listener, rng.choice(SMALL_TALK))
            add(teller, rng.choice(GOODBYES))
            conversations.append(
                ProbeConversation(
                    id=cid,
                    speakers=(teller, listener),
                    turns=tuple(turns),
                    start=start + timedelta(days=7 * c + k),
                )
            )
            previous = told
    return Corpus(seed=seed, conversations=tuple(conversations), pairs=tuple(out_pairs[:pairs]))
