"""The seeded generator: 50-turn conversations with facts planted verbatim at known turns."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from cogmem.bench.planted.templates import (
    ASSISTANT_LEADS,
    ASSISTANT_TAILS,
    CLOSERS,
    DOMAINS,
    FACT_TYPES,
    FAREWELLS,
    GENERIC_ASSISTANT,
    SPEAKERS,
    USER_LEADS,
    USER_TAILS,
    FactTemplate,
    FactType,
    Role,
)
from cogmem.models import Conversation, Turn

TURNS = 50
COMPRESSION_TURN = 40

Link = Literal["cause", "decision", "effect"]  # a planted fact's place in its chain
QuestionKind = Literal["causal", "impact"]  # "Why did we …?" / "What did … affect?"


@dataclass(frozen=True)
class PlantedFact:
    id: str
    type: FactType
    turn: int  # 1-based position in the conversation
    speaker: str
    wording: str  # verbatim in the turn's text
    question: str
    chain: str | None = None
    link: Link | None = None


@dataclass(frozen=True)
class MultiHopQuestion:
    id: str
    kind: QuestionKind
    question: str
    keywords: tuple[str, ...]
    chain: str
    turns: tuple[int, int, int]  # cause, decision, effect


@dataclass(frozen=True)
class PlantedConversation:
    id: str
    seed: int
    index: int
    domain: str
    turns: tuple[tuple[str, str], ...]  # (speaker, text); turn n is turns[n - 1]
    facts: tuple[PlantedFact, ...]
    multihop: tuple[MultiHopQuestion, ...]
    compression_turn: int = COMPRESSION_TURN
    start: datetime = field(default_factory=lambda: datetime(2024, 3, 4, 9, 0, tzinfo=UTC))

    def text(self, turn: int) -> str:
        return self.turns[turn - 1][1]

    def line(self, turn: int) -> str:
        speaker, text = self.turns[turn - 1]
        return f"{speaker}: {text}"

    def transcript(self, first: int = 1, last: int | None = None) -> str:
        last = len(self.turns) if last is None else last
        return "\n".join(self.line(n) for n in range(first, last + 1))

    def to_conversation(self) -> Conversation:
        turns = [
            Turn(
                conversation=self.id,
                session="1",
                session_index=1,
                index=n - 1,
                source_id=f"T{n}",
                speaker=speaker,
                text=text,
                at=self.start + timedelta(minutes=2 * (n - 1)),
            )
            for n, (speaker, text) in enumerate(self.turns, 1)
        ]
        return Conversation(
            id=self.id,
            speakers=list(SPEAKERS.values()),
            turns=turns,
            source_format="bench-planted",
        )


def _fill(template: str, values: dict[str, Any]) -> str:
    return template.format(**values)


def _pick_turn(
    rng: random.Random, lo: int, hi: int, role: Role, taken: set[int], user_first: bool = True
) -> int:
    """A free turn in [lo, hi] that the role speaks (user odd, assistant even)."""
    parity = 1 if (role == "user") == user_first else 0
    options = [n for n in range(lo, hi + 1) if n % 2 == parity and n not in taken]
    if not options:
        raise ValueError(f"no free {role} turn between {lo} and {hi}")
    turn = rng.choice(options)
    taken.add(turn)
    return turn


class _Deck:
    """Draws without replacement, reshuffling when empty (varied filler, no streaks)."""

    def __init__(self, rng: random.Random, items: Sequence[str]) -> None:
        self.rng = rng
        self.items = list(items)
        self.pile: list[str] = []

    def draw(self) -> str:
        if not self.pile:
            self.pile = list(self.items)
            self.rng.shuffle(self.pile)
        return self.pile.pop()


def generate_conversation(
    seed: int,
    index: int,
    *,
    turns: int = TURNS,
    compression_turn: int = COMPRESSION_TURN,
    singles_per_type: int = 2,
    chains: int = 2,
) -> PlantedConversation:
    """One conversation; the same (seed, index) always gives the same conversation."""
    if compression_turn > turns or compression_turn < 20:
        raise ValueError("compression_turn must be in [20, turns]")
    rng = random.Random(f"cogmem-planted:{seed}:{index}")
    domain = DOMAINS[index % len(DOMAINS)]
    values = {slot: rng.choice(options) for slot, options in domain.slots.items()}
    cid = f"planted-s{seed}-{index:03d}"
    taken: set[int] = {1}  # turn 1 opens the conversation
    placed: list[tuple[int, FactTemplate, str | None, Link | None]] = []

    third = compression_turn // 3
    for chain in rng.sample(domain.chains, min(chains, len(domain.chains))):
        c = _pick_turn(rng, 2, third, chain.cause.role, taken)
        d = _pick_turn(rng, third + 1, 2 * third, chain.decision.role, taken)
        e = _pick_turn(rng, 2 * third + 1, compression_turn, chain.effect.role, taken)
        placed += [
            (c, chain.cause, chain.name, "cause"),
            (d, chain.decision, chain.name, "decision"),
            (e, chain.effect, chain.name, "effect"),
        ]
    for fact_type in FACT_TYPES:
        pool = [t for t in domain.singles if t.type == fact_type]
        for template in rng.sample(pool, min(singles_per_type, len(pool))):
            turn = _pick_turn(rng, 2, compression_turn, template.role, taken)
            placed.append((turn, template, None, None))
    placed.sort(key=lambda item: item[0])

    by_turn = {turn: (template, chain, link) for turn, template, chain, link in placed}
    user_deck = _Deck(rng, domain.user_filler)
    assistant_deck = _Deck(rng, domain.assistant_filler + GENERIC_ASSISTANT)
    texts: list[tuple[str, str]] = []
    facts: list[PlantedFact] = []
    for n in range(1, turns + 1):
        role: Role = "user" if n % 2 == 1 else "assistant"
        speaker = SPEAKERS[role]
        if n == 1:
            texts.append((speaker, _fill(rng.choice(domain.opener), values)))
            continue
        if n == turns - 1 and role == "user":
            texts.append((speaker, rng.choice(CLOSERS)))
            continue
        if n == turns and role == "assistant":
            texts.append((speaker, rng.choice(FAREWELLS)))
            continue
        planted = by_turn.get(n)
        if planted is not None:
            template, chain_name, link = planted
            wording = _fill(template.wording, values)
            if role == "user":
                lead, tail = rng.choice(USER_LEADS), rng.choice(USER_TAILS)
            else:
                lead, tail = rng.choice(ASSISTANT_LEADS), rng.choice(ASSISTANT_TAILS)
            parts = [lead, wording + ".", tail]
            if role == "assistant":
                parts.append(assistant_deck.draw())
            texts.append((speaker, " ".join(p for p in parts if p)))
            facts.append(
                PlantedFact(
                    id=f"{cid}:T{n}",
                    type=template.type,
                    turn=n,
                    speaker=speaker,
                    wording=wording,
                    question=_fill(template.question, values),
                    chain=chain_name,
                    link=link,
                )
            )
            continue
        if role == "user":
            text = user_deck.draw()
            if rng.random() < 0.35:
                text = f"{rng.choice(('Thanks.', 'Got it.', 'Makes sense.', 'Ok.'))} {text}"
        else:
            text = " ".join(assistant_deck.draw() for _ in range(rng.randint(6, 10)))
        texts.append((speaker, text))

    multihop: list[MultiHopQuestion] = []
    chain_turns: dict[str, dict[str, int]] = {}
    for f in facts:
        if f.chain and f.link:
            chain_turns.setdefault(f.chain, {})[f.link] = f.turn
    for chain in domain.chains:
        if chain.name not in chain_turns:
            continue
        t = chain_turns[chain.name]
        span = (t["cause"], t["decision"], t["effect"])
        asked: tuple[tuple[QuestionKind, str, tuple[str, ...]], ...] = (
            ("causal", chain.why, chain.why_keywords),
            ("impact", chain.impact, chain.impact_keywords),
        )
        for kind, question, keywords in asked:
            multihop.append(
                MultiHopQuestion(
                    id=f"{cid}:{chain.name}:{kind}",
                    kind=kind,
                    question=_fill(question, values),
                    keywords=tuple(_fill(k, values) for k in keywords),
                    chain=chain.name,
                    turns=span,
                )
            )
    return PlantedConversation(
        id=cid,
        seed=seed,
        index=index,
        domain=domain.name,
        turns=tuple(texts),
        facts=tuple(facts),
        multihop=tuple(multihop),
        compression_turn=compression_turn,
        start=datetime(2024, 3, 4, 9, 0, tzinfo=UTC) + timedelta(days=index),
    )


def generate(n: int, seed: int = 0, **kwargs: Any) -> list[PlantedConversation]:
    return [generate_conversation(seed, i, **kwargs) for i in range(n)]
