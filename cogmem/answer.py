"""From Evidence to a prompt block and to an answer.

``pack`` fills a token budget greedily in score order (CogCanvas eq. 5) with blocks that
show type, content, the verbatim quote, speaker, turn id and times. The token estimate works
offline (no tokenizer download). Offline, ``extractive_answer`` returns the best grounded
sentences, with resolved dates; with an LLM, ``REASONING_PROMPT`` asks it to connect the
records and cite turn ids.
"""

from __future__ import annotations

import math
import re
from datetime import datetime

from pydantic import BaseModel, Field

from cogmem.models import Evidence, TimeRange
from cogmem.retrieval.router import Plan
from cogmem.temporal import describe_time
from cogmem.text import sentences

_WORD = re.compile(r"\w+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate of BPE tokens (close to cl100k on English chat text)."""
    if not text:
        return 0
    pieces = len(_WORD.findall(text))
    return max(1, math.ceil(max(pieces * 1.1, len(text) / 4.0)))


def _day(at: datetime | None) -> str:
    return f"{at.day} {at:%B %Y}" if at else "unknown date"


def referenced_time(ev: Evidence) -> str | None:
    """The resolved time a record refers to, in words (None if it names none)."""
    if ev.time_start is None or ev.time_end is None:
        return None
    span_days = (ev.time_end - ev.time_start).total_seconds() / 86400
    granularity = (
        "day"
        if span_days <= 1.01
        else "weekend"
        if span_days <= 2.01
        else "week"
        if span_days <= 7.01
        else "month"
        if span_days <= 31.01
        else "season"
        if span_days <= 92.01
        else "year"
        if span_days <= 366.01
        else "decade"
    )
    tr = TimeRange(
        start=ev.time_start,
        end=ev.time_end,
        granularity=granularity,
        text=ev.time_text or "",
    )
    return describe_time(tr)


def render(index: int, ev: Evidence) -> str:
    """One evidence block as the prompt shows it."""
    head = f"[{index}] {ev.type} · {ev.speaker or '?'} · turn {ev.turn_source_id or '?'}"
    head += f" · said {_day(ev.turn_at)}"
    when = referenced_time(ev)
    if when:
        head += f' · refers to {when} ("{ev.time_text}")'
    if ev.status and ev.type == "Claim":
        head += f" · {ev.status}"
    lines = [head]
    if ev.content and ev.content != ev.quote:
        lines.append(f"    content: {ev.content}")
    if ev.quote:
        lines.append(f'    quote: "{ev.quote}"')
    for older in ev.supersedes:
        lines.append(f"    replaces: {older}")
    return "\n".join(lines)


class ContextBlock(BaseModel):
    text: str
    tokens: int
    budget: int
    included: list[Evidence] = Field(default_factory=list)
    left_out: int = 0


def pack(evidence: list[Evidence], budget_tokens: int, header: str | None = None) -> ContextBlock:
    """Greedy packing in score order; a block that does not fit is skipped, smaller later
    blocks may still fit."""
    budget = max(0, budget_tokens)
    parts: list[str] = []
    used = 0
    if header:
        used = estimate_tokens(header)
        parts.append(header)
    included: list[Evidence] = []
    for ev in sorted(evidence, key=lambda e: e.score, reverse=True):
        block = render(len(included) + 1, ev)
        cost = estimate_tokens(block)
        if used + cost > budget:
            continue
        parts.append(block)
        used += cost
        included.append(ev)
    return ContextBlock(
        text="\n".join(parts),
        tokens=used,
        budget=budget,
        included=included,
        left_out=len(evidence) - len(included),
    )


REASONING_PROMPT = (
    "You answer questions about a long conversation from retrieved memory records. Each "
    "record shows its type (Event, Fact, Claim = someone's opinion, Decision, …), who said "
    "it, the turn id, when it was said and, if resolved, the time it refers to. Think step by "
    "step: find the records that bear on the question, connect them (causes, decisions, "
    "changes over time), keep opinions apart from facts and say whose opinion it is, and "
    "resolve relative dates from the time each record was said. Answer briefly, cite the "
    "turn ids you used in brackets like [D3:4], and say you don't know if the records do "
    "not contain the answer."
)


def llm_prompt(question: str, block: ContextBlock) -> str:
    return f"Memory records:\n{block.text}\n\nQuestion: {question}\nAnswer:"


def _best_sentence(question_terms: set[str], text: str) -> str:
    best, best_score = text.strip(), -1.0
    for sent in sentences(text):
        words = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", sent.text)}
        score = len(words & question_terms) + min(len(sent.text), 200) / 1000
        if score > best_score:
            best, best_score = sent.text, score
    return best


def extractive_answer(plan: Plan, evidence: list[Evidence], max_items: int = 3) -> str:
    """An answer made only of what was said, with turn ids and resolved dates."""
    if not evidence:
        return "I don't know: nothing in memory matches this question."
    terms = set(plan.keywords)
    top = evidence[:max_items]
    if plan.intent == "temporal":
        for ev in evidence[:5]:
            when = referenced_time(ev)
            if when:
                return (
                    f"{when} — {ev.speaker} ({ev.turn_source_id}, said {_day(ev.turn_at)}): "
                    f'"{ev.quote}"'
                )
        ev = top[0]
        quote = _best_sentence(terms, ev.turn_text or ev.quote or ev.content)
        return f'Around {_day(ev.turn_at)} — {ev.speaker} ({ev.turn_source_id}): "{quote}"'
    if plan.intent in ("opinion", "update"):
        claims = [e for e in evidence if e.type == "Claim"]
        if claims:
            ev = claims[0]
            text = (
                f"{ev.speaker}'s view ({ev.turn_source_id}, {_day(ev.turn_at)}"
                f'{", " + ev.status if ev.status else ""}): "{ev.quote}"'
            )
            if ev.supersedes:
                text += " — earlier: " + "; ".join(ev.supersedes)
            return text
    lines = []
    for ev in top:
        quote = _best_sentence(terms, ev.turn_text or ev.quote or ev.content)
        when = referenced_time(ev)
        date = f", refers to {when}" if when else ""
        lines.append(f'{ev.speaker} ({ev.turn_source_id}, {_day(ev.turn_at)}{date}): "{quote}"')
    return "\n".join(lines)
