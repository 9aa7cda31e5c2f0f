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
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, Field

from cogmem.models import Evidence, TimeRange
from cogmem.retrieval.router import Plan
from cogmem.retrieval.scoring import plan_topic, status_fit
from cogmem.temporal import describe_time, find_time_expressions
from cogmem.text import Span, sentences, topic_stems

_WORD = re.compile(r"\w+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate of BPE tokens (close to cl100k on English chat text)."""
    if not text:
        return 0
    pieces = len(_WORD.findall(text))
    return max(1, math.ceil(max(pieces * 1.1, len(text) / 4.0)))


def _day(at: datetime | None) -> str:
    return f"{at.day} {at:%B %Y}" if at else "unknown date"


LOCAL_DAY_SHIFT = timedelta(hours=12)
"""How far a local-calendar span's UTC start is read on to name its local day."""


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
    # A day or longer was resolved on the speaker's local calendar (local midnight to local
    # midnight) and comes back as UTC instants, which fall on the day before for a speaker
    # east of UTC. Read half a day on, such a start lies on its local day for any offset
    # within ±12 h; a UTC span's start too. (A span comes back in UTC; the time a turn was
    # said comes back at the offset it was given with, so its day is the speaker's.)
    shift = LOCAL_DAY_SHIFT if ev.time_end - ev.time_start >= timedelta(hours=23) else timedelta(0)
    tr = TimeRange(
        start=ev.time_start + shift,
        end=ev.time_end + shift,
        granularity=granularity,
        text=ev.time_text or "",
    )
    return describe_time(tr)


# a turn up to this many estimated tokens is shown whole; a longer one as the quoted
# sentence with its neighbours
WHOLE_TURN_TOKENS = 90


def passage(ev: Evidence, terms: set[str] | None = None, whole: bool = True) -> str:
    """What was said around a record: the whole turn when it is short (and ``whole``),
    else the quoted (or, given ``terms``, the best matching) sentence with the sentences
    before and after it, so that a short neighbour holding the answer (a companion's name,
    a reason) is never dropped."""
    turn = (ev.turn_text or "").strip()
    quote = (ev.quote or ev.content or "").strip()
    if not turn:
        return quote
    if whole and estimate_tokens(turn) <= WHOLE_TURN_TOKENS:
        return turn
    spans = sentences(turn)
    if len(spans) <= 1:
        return turn if whole or not quote else quote
    i = _anchor_sentence(spans, quote, terms)
    first, last = max(0, i - 1), min(len(spans) - 1, i + 1)
    return turn[spans[first].start : spans[last].end]


def _anchor_sentence(spans: list[Span], quote: str, terms: set[str] | None) -> int:
    """The sentence the record quotes, or (with ``terms``) the one sharing most of them."""
    if terms:
        scores = [
            len({w.lower() for w in re.findall(r"[A-Za-z0-9]+", sp.text)} & terms) for sp in spans
        ]
        if max(scores) > 0:
            return scores.index(max(scores))
    key = quote.lower()[:60]
    for i, sp in enumerate(spans):
        if key and (key in sp.text.lower() or sp.text.lower() in key):
            return i
    return 0


def render(index: int, ev: Evidence, said: str | None = None) -> str:
    """One evidence block as the prompt shows it. ``said`` (default: the quote) is the
    wording shown for what was said: the whole turn or the quote with its neighbours."""
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
    said = ev.quote if said is None else said
    if said:
        lines.append(f'    quote: "{said}"')
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
    blocks may still fit. Each block shows the whole turn when it fits (else the quote with
    its neighbouring sentences, else the quote alone); a turn already shown whole is not
    repeated for another record from it."""
    budget = max(0, budget_tokens)
    parts: list[str] = []
    used = 0
    if header:
        used = estimate_tokens(header)
        parts.append(header)
    included: list[Evidence] = []
    shown: set[str] = set()  # turns already shown whole
    for ev in sorted(evidence, key=lambda e: e.score, reverse=True):
        whole = ev.turn_id not in shown
        options = [passage(ev, whole=True), passage(ev, whole=False)] if whole else []
        if ev.quote:
            options.append(ev.quote)
        for said in dict.fromkeys(options):  # widest first, each wording once
            block = render(len(included) + 1, ev, said)
            cost = estimate_tokens(block)
            if used + cost <= budget:
                break
        else:
            continue
        parts.append(block)
        used += cost
        included.append(ev)
        if ev.turn_id and said and said.strip() == (ev.turn_text or "").strip():
            shown.add(ev.turn_id)
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


def _overlap(ev: Evidence, terms: set[str], speaker: bool = False) -> int:
    words = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", passage(ev))}
    if speaker and ev.speaker:
        words.add(ev.speaker.lower())
    return len(words & terms)


def _when(ev: Evidence) -> str | None:
    """The time a record refers to, or else the first time said in its passage (a
    neighbouring sentence of the same turn may carry it: "We fly out on Friday! Clara and
    I are spending a week in Lisbon.")."""
    when = referenced_time(ev)
    if when or ev.turn_at is None:
        return when
    mentions = find_time_expressions(passage(ev), ev.turn_at)
    return describe_time(mentions[0].range) if mentions else None


def _about(ev: Evidence, topic: frozenset[str]) -> bool:
    """Whether a record's passage shares a word (stemmed) with the question's topic:
    "renewed" speaks of "renew"."""
    return bool(topic & topic_stems(passage(ev)))


def _mentions(ev: Evidence, terms: set[str]) -> bool:
    return _overlap(ev, terms) > 0


# a question about change wants the earlier views too; "… now?" only the current one
_ASKS_CHANGE = re.compile(r"\bchang|\bused to\b|\bbefore\b|\bhistory\b|\bover time\b", re.I)


def extractive_answer(plan: Plan, evidence: list[Evidence], max_items: int = 3) -> str:
    """An answer made only of what was said, with turn ids and resolved dates."""
    if not evidence:
        return "I don't know: nothing in memory matches this question."
    terms = set(plan.keywords)
    top = evidence[:max_items]
    if plan.intent == "temporal":
        dated = [(ev, _when(ev)) for ev in evidence[:5]]
        dated = [(ev, when) for ev, when in dated if when]
        if dated:  # the dated record that shares most words with the question; of those
            # about the asked thing, one with the plan status asked for first ("when did":
            # done, not the plan)
            topic = plan_topic(plan)
            ev, when = max(
                dated,
                key=lambda d: (
                    status_fit(plan, d[0].status) if _about(d[0], topic) else 0.0,
                    _overlap(d[0], terms, speaker=True),
                    -dated.index(d),
                ),
            )
            return (
                f"{when} — {ev.speaker} ({ev.turn_source_id}, said {_day(ev.turn_at)}): "
                f'"{passage(ev, terms)}"'
            )
        ev = top[0]
        quote = passage(ev, terms)
        return f'Around {_day(ev.turn_at)} — {ev.speaker} ({ev.turn_source_id}): "{quote}"'
    if plan.intent in ("opinion", "update"):
        history = opinion_history(plan, evidence) if plan.wants_history else None
        if history:
            return history
        # a claim that shares no word with the question answers another question
        claims = [e for e in evidence if e.type == "Claim" and (not terms or _mentions(e, terms))]
        if claims:
            ev = claims[0]
            text = (
                f"{ev.speaker}'s view ({ev.turn_source_id}, {_day(ev.turn_at)}"
                f'{", " + ev.status if ev.status else ""}): "{ev.quote}"'
            )
            if ev.supersedes and _ASKS_CHANGE.search(plan.question):
                text += " — earlier: " + "; ".join(ev.supersedes)
            return text
    lines = []
    for ev in top:
        quote = passage(ev, terms)
        when = referenced_time(ev)
        date = f", refers to {when}" if when else ""
        lines.append(f'{ev.speaker} ({ev.turn_source_id}, {_day(ev.turn_at)}{date}): "{quote}"')
    return "\n".join(lines)


# -- opinion history (how a view changed) ------------------------------------------------------
def opinion_history(plan: Plan, evidence: list[Evidence]) -> str | None:
    """The holder's claims about the target in time order, dated, old → new (with the older
    claims that a retrieved claim SUPERSEDES, even when they were not retrieved themselves).
    None when the evidence holds no claim of the holder about the target."""
    source, target = plan.opinion_source, plan.opinion_target
    claims = [
        e
        for e in evidence
        if e.type == "Claim"
        and (source is None or e.speaker == source)
        and (target is None or target.lower() in f"{e.content} {e.quote or ''}".lower())
    ]
    if not claims:
        return None
    far = datetime.max.replace(tzinfo=UTC)
    steps: dict[str, tuple[datetime, str]] = {}
    for ev in claims:
        at = ev.turn_at or far
        status = f", {ev.status}" if ev.status else ""
        steps[ev.quote or ev.content] = (
            at,
            f'{_day(ev.turn_at)} ({ev.turn_source_id}{status}): "{ev.quote or ev.content}"',
        )
    for ev in claims:
        for older in ev.supersedes:  # '"quote" (turn, date)', older than ev
            if not any(f'"{quote}"' in older for quote in steps):
                at = (ev.turn_at or far) - timedelta(seconds=1)
                steps[older] = (at, f"earlier, replaced: {older}")
    ordered = [text for _, text in sorted(steps.values(), key=lambda pair: pair[0])]
    who = claims[0].speaker or source or "?"
    about = f" of {target}" if target else ""
    return f"{who}'s view{about}, oldest first:\n" + "\n".join(
        f"{i}. {text}" for i, text in enumerate(ordered, 1)
    )
