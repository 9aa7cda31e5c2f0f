"""Forgetting precisely (issue 50): a turn, a conversation or a span of time, and exactly what
rests on it, so that the group equals one that never ingested those turns.

What goes, in one write transaction (all of it lands, or nothing does):

- the **turns**, with every relationship they have (a node's vector and fulltext entries go
  with it);
- the **records that rest on them**: a record whose own turn (``turn_id``: its quote and
  content are that turn's words) is forgotten, whatever else evidences it; an entity
  (Person, Concept) when every turn that evidences it is forgotten, except a person who still
  speaks in a turn that stays: ingest evidences a speaker by their first turn of a
  conversation, so that person is evidenced by their first turn that stays instead;
- **consolidated Facts** of every (person, concept) pair that a forgotten event supported:
  they are deleted and made again from the events that stay by the rule that made them
  (:func:`cogmem.consolidate.facts.plan_facts`, the memory's thresholds), so a Fact whose
  support falls below ``min_events`` is gone and one that keeps it is re-dated and re-counted;
- **claim statuses**: the (speaker, target) pairs of the forgotten claims are reconciled again
  (:func:`cogmem.consolidate.claims.reconcile_pairs`), so a claim that a forgotten one had
  SUPERSEDED is CURRENT again; a claim that was CONFLICTING when said only because of a
  forgotten one was said CURRENT;
- **plans** (Events, Todos) that a forgotten record had done or called off are open again
  (their first status), unless a record that stays still does so;
- **artifact links** (REFERENCES, CAUSES) of the touched conversations are derived again
  when the group has any (the link job ran on it);
- the **NEXT chain** is bridged over each gap; sessions and conversations left without turns
  are deleted; a session's time and a conversation's speakers (unless its source declares
  them, as LoCoMo does) are read again from the turns that stay;
- entities that stay are re-dated (``first_at``: their earliest evidence turn) and keep only
  the aliases that a turn evidencing them still says.

Turn positions keep their values: ``idx`` (and a session's index) of the turns that stay are
not renumbered, so a gap shows where turns were forgotten, a live chat's next turn still
follows its last, and generated ids never collide. The property test therefore
compares positions by their order, not their value (tests/integration/test_forget.py), and
search takes a turn's neighbours by order as well (the share of the turn before and after,
Ground's window: along the NEXT chain, each turn's ``prev_idx``), so a gap moves no ranking.
Rules that count turns between two records (the artifact links' turn windows) count across a
gap as before the forget.

What stays: records evidenced by a forgotten turn and a kept one (entities, consolidated
Facts) keep the kept evidence and their words, which are never a forgotten turn's (an
entity's content is its name; a Fact's is made again). Extraction is not run again: a kept
turn whose records were read in the light of a forgotten one (a name said only there, a
pronoun resolved through it) keeps them as they were extracted. The forget names such turns
(``ForgetSummary.stale``: the turns of the touched conversations whose records a fresh
extraction of what stays, with the heuristic extractor, would make otherwise); forgetting
and saying them again makes them what a first ingest would. The equality with a group that
never ingested the turns holds exactly when ``stale`` is empty (the property test asserts
both). The one relation ingest keeps without a record of its own, KNOWS, is extracted again
from the turns that could still say it.

The search cache's epoch moves in the same transaction, so every search process drops its
in-process copy of the group. One audit node (``:ForgetAudit``) records when, what kind, how
many turns, records and facts, and which ``actor`` asked; never what was said. Nothing here
logs any text.
"""

from __future__ import annotations

import re
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from cogmem.consolidate.base import ConsolidationReport, ConsolidationSettings
from cogmem.consolidate.claims import canonical_name, reconcile_pairs
from cogmem.consolidate.edges import by_type, edge_diff, write_rows
from cogmem.consolidate.facts import describe_span, fact_contents, plan_facts
from cogmem.consolidate.links import plan_links, write_link_edges
from cogmem.embed import Embedder
from cogmem.extract import Extractor, check_quotes
from cogmem.forget_turns import (  # noqa: F401  (re-exported: the forget API in one place)
    ForgetError,
    ForgottenTurn,
    NothingToForget,
    conversation_turns,
    resolve_turns,
    span_bound,
    span_turns,
)
from cogmem.ingest.ids import entity_id, group_key
from cogmem.ingest.ingestor import discover_persons, seed_context, speakers_of
from cogmem.ingest.rows import GraphBuilder
from cogmem.llm import LLMClient
from cogmem.models import Conversation, RecordType, Turn
from cogmem.store import Row, Statements, Store

Kind = Literal["turns", "conversation", "span"]


class ForgetSummary(BaseModel):
    """What a forget removed and changed (or would, with ``dry_run``)."""

    group: str
    kind: Kind
    dry_run: bool = False
    turns: list[ForgottenTurn] = Field(default_factory=list)
    records: dict[str, int] = Field(
        default_factory=dict, description="records deleted, by type (consolidated Facts apart)"
    )
    facts_removed: int = Field(0, description="consolidated Facts deleted to be made again")
    facts_made: int = Field(0, description="consolidated Facts made again from what stays")
    claim_pairs: int = Field(0, description="(speaker, target) pairs whose claims were reconciled")
    claims_changed: dict[str, int] = Field(default_factory=dict)
    plans_reopened: int = 0
    links_changed: int = 0
    next_links: int = Field(0, description="NEXT links that bridge a gap")
    sessions_removed: int = 0
    conversations_removed: int = 0
    stale: list[ForgottenTurn] = Field(
        default_factory=list,
        description="turns that stay whose records a fresh extraction would make otherwise "
        "(read in the light of a forgotten turn); not extracted again",
    )
    audit_id: str | None = None
    seconds: float = 0.0

    @property
    def turn_count(self) -> int:
        return len(self.turns)

    @property
    def record_count(self) -> int:
        return sum(self.records.values())


@dataclass
class _Plan:
    """What a forget of ``turns`` removes and touches, read before anything is written."""

    turns: list[str]
    gone: list[Row]
    evidence: list[dict[str, str]]  # {person, turn}: a speaker's first turn that stays
    touched_entities: list[str]
    fact_pairs: list[dict[str, str]]
    pair_facts: list[str]
    claim_pairs: set[tuple[str, str]]
    reopen: list[str]
    conflicted: list[str]
    next_pairs: list[dict[str, str]]
    sessions: list[str]
    conversations: list[str]
    touched_conversations: list[str] = field(default_factory=list)

    @property
    def gone_ids(self) -> list[str]:
        return [r["id"] for r in self.gone]


# -- what rests on them -----------------------------------------------------------------
def plan(store: Statements, group: str, turns: Sequence[str]) -> _Plan:
    """Read what a forget of ``turns`` (node ids) removes and touches."""
    tids = list(turns)
    gone = store.read("forget/gone_records", group=group, turns=tids)
    firsts = store.read("forget/speaker_turns", group=group, turns=tids)
    evidence = [
        {"person": entity_id(group, RecordType.PERSON, r["speaker"]), "turn": r["first"]}
        for r in firsts
        if r["first"] and r["speaker"]
    ]
    keep_persons = {r["person"] for r in evidence}
    gone = [r for r in gone if not (r["person"] and r["id"] in keep_persons)]
    gone_ids = {r["id"] for r in gone}
    touched = [
        r["id"]
        for r in store.read("forget/touched_entities", group=group, turns=tids)
        if r["id"] not in gone_ids
    ]
    events = sorted(r["id"] for r in gone if r["event"])
    fact_pairs = store.read("forget/fact_pairs", group=group, events=events) if events else []
    pair_facts = (
        [r["id"] for r in store.read("forget/pair_facts", group=group, pairs=fact_pairs)]
        if fact_pairs
        else []
    )
    claim_pairs: set[tuple[str, str]] = set()
    for r in gone:
        if not r["claim"]:
            continue
        sources = [n for n in (*r["source_names"], *r["claim_sources"]) if n]
        targets = [n for n in (*r["target_names"], *r["claim_targets"]) if n]
        if sources and targets:
            s, t = canonical_name(sources[0]), canonical_name(targets[0])
            if s and t and s != t:
                claim_pairs.add((s, t))
    reopen = sorted({b for r in gone for b in r["superseded"]} - gone_ids)
    conflicted = sorted({b for r in gone for b in r["conflicts"]} - gone_ids)
    places = store.read("forget/turn_places", group=group, turns=tids)
    conv_total = {r["conversation_id"]: int(r["conversation_turns"]) for r in places}
    conv_of = _conversation_of(store, group, tids)
    n_gone = Counter(conv_of.values())
    # a conversation that keeps none of its turns has no gap to bridge
    partial = [
        t for t in tids if n_gone[conv_of.get(t, "")] < conv_total.get(conv_of.get(t, ""), 0)
    ]
    next_pairs = (
        [
            {"prev": r["prev"], "next": r["next"]}
            for r in store.read("forget/next_gaps", group=group, turns=tids, partial=partial)
        ]
        if partial
        else []
    )
    kept_convs = sorted(c for c, total in conv_total.items() if n_gone[c] < total)
    return _Plan(
        turns=tids,
        gone=gone,
        evidence=evidence,
        touched_entities=touched,
        fact_pairs=[
            {"person_id": r["person_id"], "concept_id": r["concept_id"]} for r in fact_pairs
        ],
        pair_facts=pair_facts,
        claim_pairs=claim_pairs,
        reopen=reopen,
        conflicted=conflicted,
        next_pairs=next_pairs,
        sessions=sorted({r["session_id"] for r in places}),
        conversations=sorted(conv_total),
        touched_conversations=kept_convs,
    )


def _conversation_of(store: Statements, group: str, tids: Sequence[str]) -> dict[str, str]:
    rows = store.read("forget/turn_conversations", group=group, turns=list(tids))
    return {r["id"]: r["conversation_id"] for r in rows}


# -- consolidated Facts made again ------------------------------------------------------
def remake_facts(
    store: Statements,
    group: str,
    work: _Plan,
    embedder: Embedder | None,
    llm: LLMClient | None,
    config: ConsolidationSettings,
) -> list[dict[str, Any]]:
    """The consolidated Facts of the touched pairs, planned afresh from the events that stay
    (the existing Facts of those pairs are deleted, so ids and wording are what a first
    consolidation of the remaining events gives)."""
    if not work.fact_pairs:
        return []
    rows = store.read("forget/pair_events", group=group, pairs=work.fact_pairs, gone=work.gone_ids)
    plans = plan_facts(rows, [], group, config)
    if not plans:
        return []
    if embedder is None:
        raise ForgetError("making consolidated Facts again needs an embedder")
    contents = fact_contents(plans, llm, ConsolidationReport(group=group))
    vectors = embedder.embed([c for c, _ in contents])
    gkey = group_key(group)
    out: list[dict[str, Any]] = []
    for p, (content, method), vec in zip(plans, contents, vectors, strict=True):
        start = p.events[0].t
        out.append(
            {
                "id": p.id,
                "person_id": p.person_id,
                "concept_id": p.concept_id,
                "event_ids": [e.id for e in p.events],
                "props": {
                    "group_key": gkey,
                    "type": "Fact",
                    "content": content,
                    "method": method,
                    "subject": p.person,
                    "person_id": p.person_id,
                    "concept_id": p.concept_id,
                    "concept": p.concept,
                    "cluster_seed": p.seed_event,
                    "support_count": len(p.events),
                    "occasions": p.occasions,
                    "time_start": start,
                    "time_end": max(e.t_end for e in p.events),
                    "time_text": describe_span(start, p.events[-1].t),
                    "at": max(e.at for e in p.events),
                    "confidence": 0.8,
                    "status": "CURRENT",
                    "embedding": vec.tolist(),
                },
            }
        )
    return out


# -- the write --------------------------------------------------------------------------
def _aliases(tx: Statements, group: str, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Persons whose aliases change: an alias stays while a turn evidencing them says it."""
    changed = []
    for row in tx.read("forget/entity_aliases", group=group, ids=list(ids)):
        texts = [t for t in row["texts"] if t]
        keep = [
            a
            for a in row["aliases"]
            if any(re.search(rf"(?<!\w){re.escape(a)}(?!\w)", t) for t in texts)
        ]
        if keep != list(row["aliases"]):
            changed.append({"id": row["id"], "aliases": keep})
    return changed


def _relink(
    tx: Statements, group: str, conversations: Sequence[str], config: ConsolidationSettings
) -> int:
    """Derive the artifact links of ``conversations`` again; returns edges changed."""
    if not conversations or not tx.read("forget/has_link_edges", group=group)[0]["linked"]:
        return 0
    rows = tx.read(
        "forget/link_candidates",
        group=group,
        types=config.link_types,
        conversations=list(conversations),
    )
    links = plan_links(rows, None, config)
    wanted = {(a, "REFERENCES", b) for a, b in links.references} | {
        (a, "CAUSES", b) for a, b in links.causes
    }
    owned = {
        (e["src"], e["type"], e["dst"])
        for e in tx.read("forget/link_edges", group=group, ids=[r["id"] for r in rows])
    }
    create, remove = edge_diff(wanted, owned, owned)
    write_link_edges(tx, group, links, create, remove)
    return sum(by_type(create).values()) + sum(by_type(remove).values())


def _turn(t: Row, conversation: str) -> Turn:
    """A stored turn as the extractor reads it."""
    return Turn(
        conversation=conversation,
        session=str(t["session_index"]),
        session_index=int(t["session_index"] or 0),
        index=int(t["idx"]),
        source_id=t["source_id"],
        speaker=t["speaker"],
        text=t["text"] or "",
        at=t["at"],
        caption=t["caption"],
    )


def stale_turns(
    store: Store,
    group: str,
    conversations: Sequence[str],
    extractor: Extractor | None,
    gone: Sequence[str] = (),
) -> list[ForgottenTurn]:
    """The turns that stay in ``conversations`` whose records a fresh extraction of what
    stays would make otherwise: turns read in the light of a forgotten one (a name said only
    there, a pronoun resolved through it). A forget does not extract again; it names them
    (``ForgetSummary.stale``), so that a caller can forget and say them again. Checked with
    the heuristic extractor only (an LLM's extraction is neither cheap nor repeatable)."""
    if extractor is None or extractor.name != "heuristic" or not conversations:
        return []
    stale: list[ForgottenTurn] = []
    forgotten = set(gone)
    for row in store.read(
        "forget/conversation_rest", group=group, conversations=list(conversations)
    ):
        kept = [t for t in row["turns"] if t["id"] not in forgotten]
        turns = [_turn(t, row["conversation"]) for t in kept]
        conv = Conversation(id=row["conversation"], speakers=row["speakers"] or [], turns=turns)
        # the conversation alone, as a first ingest of it reads it (no persons of the group)
        ctx = seed_context(store, group, speakers_of(conv), discover_persons([conv]), persons=[])
        extractions = []
        for turn in turns:
            checked = check_quotes(turn, extractor.extract(turn, ctx))
            ctx.observe(turn, checked)
            extractions.append(checked.records)
        rows = GraphBuilder(group, conv).batch(turns, extractions, None, {})
        fresh: dict[str, set[str]] = {}
        for r in rows.records:
            for tid in r["turn_ids"]:
                fresh.setdefault(tid, set()).add(r["id"])
        for t, turn in zip(kept, turns, strict=True):
            speaker = entity_id(group, RecordType.PERSON, turn.speaker)  # evidenced anyway
            if set(t["records"]) - {speaker} != fresh.get(t["id"], set()) - {speaker}:
                stale.append(
                    ForgottenTurn(
                        id=t["id"], source_id=t["source_id"], conversation=row["conversation"]
                    )
                )
    return stale


def knows_still_said(
    store: Store, group: str, work: _Plan, extractor: Extractor | None
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The KNOWS edges to persons that lose evidence: (those a turn that stays still says,
    with that turn's time and label; those none says). A relation has no record of its own
    to follow, so the turns that could say it (spoken by the edge's source, evidencing its
    target) are extracted again; without an extractor, every such edge is dropped."""
    persons = [p for p in work.touched_entities if p not in work.gone_ids]
    if not persons:
        return [], []
    rows = store.read("forget/knows_candidates", group=group, persons=persons, turns=work.turns)
    keep: list[dict[str, Any]] = []
    drop: list[dict[str, str]] = []
    for row in rows:
        said: list[tuple[datetime | None, str | None]] = []
        for t in sorted(row["turns"], key=lambda t: t["idx"]):
            if extractor is None:
                break
            turn = _turn(t, t["conversation"])
            ctx = seed_context(store, group, t["speakers"] or [t["speaker"]])
            checked = check_quotes(turn, extractor.extract(turn, ctx))
            said += [
                (t["at"], rec.relation_label)
                for rec in checked.records
                if rec.type is RecordType.PERSON
                and rec.relation == "KNOWS"
                and canonical_name(rec.name or rec.content) == canonical_name(row["name"])
            ]
        edge = {"src": row["src"], "dst": row["dst"]}
        if said:
            keep.append({**edge, "at": said[0][0], "relation": said[-1][1]})
        else:
            drop.append(edge)
    return keep, drop


def forget(
    store: Store,
    group: str,
    kind: Kind,
    turns: Sequence[ForgottenTurn],
    *,
    embedder: Embedder | None,
    extractor: Extractor | None = None,
    llm: LLMClient | None = None,
    config: ConsolidationSettings | None = None,
    dry_run: bool = False,
    actor: str | None = None,
) -> ForgetSummary:
    """Forget ``turns`` of ``group`` and what rests on them (see the module's docstring); with
    ``dry_run``, only say what would go."""
    started = time.perf_counter()
    config = config or ConsolidationSettings()
    turns = list({t.id: t for t in turns}.values())
    for attempt in range(_TRIES):
        try:
            return _forget_once(
                store, group, kind, turns, started, embedder, extractor, llm, config, dry_run, actor
            )
        except _Moved as moved:
            if attempt == _TRIES - 1:
                raise ForgetError(
                    f"conversation {moved.conversation!r} kept changing while it was being "
                    f"forgotten ({_TRIES} tries): nothing was forgotten; try again"
                ) from None
            still = {
                r["id"]
                for r in store.read("forget/turns_by_id", group=group, ids=[t.id for t in turns])
            }
            gone = [t for t in turns if t.id not in still]
            if gone:
                raise NothingToForget(
                    f"turn {gone[0].source_id!r} was forgotten meanwhile: nothing more was "
                    "forgotten"
                ) from None
    raise AssertionError("unreachable")  # the loop returns or raises


_TRIES = 5


class _Moved(RuntimeError):
    """A conversation the forget touches changed between its plan and its write (a live turn
    appended, another forget): the transaction is abandoned and the forget planned again."""

    def __init__(self, conversation: str) -> None:
        super().__init__(conversation)
        self.conversation = conversation


def _states(store: Statements, group: str, conversations: Sequence[str]) -> list[Row]:
    return store.read("forget/conversation_state", group=group, conversations=list(conversations))


def _forget_once(
    store: Store,
    group: str,
    kind: Kind,
    turns: list[ForgottenTurn],
    started: float,
    embedder: Embedder | None,
    extractor: Extractor | None,
    llm: LLMClient | None,
    config: ConsolidationSettings,
    dry_run: bool,
    actor: str | None,
) -> ForgetSummary:
    summary = ForgetSummary(group=group, kind=kind, dry_run=dry_run, turns=turns)
    # the touched conversations as the plan finds them: checked again under their locks
    locked = sorted(set(_conversation_of(store, group, [t.id for t in turns]).values()))
    before = _states(store, group, locked)
    work = plan(store, group, [t.id for t in turns])
    summary.records = dict(Counter(str(r["type"]) for r in work.gone))
    summary.facts_removed = len(work.pair_facts)
    summary.claim_pairs = len(work.claim_pairs)
    summary.plans_reopened = len(work.reopen)
    summary.next_links = len(work.next_pairs)
    if dry_run:
        summary.stale = stale_turns(
            store, group, work.touched_conversations, extractor, gone=work.turns
        )
        summary.seconds = round(time.perf_counter() - started, 4)
        return summary
    facts = remake_facts(store, group, work, embedder, llm, config)
    knows_keep, knows_drop = knows_still_said(store, group, work, extractor)
    audit_id = uuid.uuid4().hex

    def write(tx: Statements) -> tuple[dict[str, int], int, int, int]:
        # first, each touched conversation's append lock (in one order: two forgets never
        # wait on each other crosswise): a live turn appended to it waits for this forget,
        # then finds its tail moved and plans again (Memory._append_after_tail); one that
        # landed since the plan moved the state, and this forget plans again
        for cid in locked:
            tx.write("live/append_lock", conversation_id=cid, group=group)
        now = _states(tx, group, locked)
        if now != before:
            moved = [a["conversation_id"] for a, b in zip(now, before, strict=False) if a != b]
            raise _Moved(str(moved[0] if moved else locked[0]))
        (bump,) = tx.write("forget/bump_vectors", group=group)
        vseq = int(bump["vseq"])
        tx.write("forget/delete_records", group=group, ids=[*work.gone_ids, *work.pair_facts])
        tx.write("forget/delete_turns", group=group, ids=work.turns)
        tx.write("forget/link_gaps", group=group, pairs=work.next_pairs, vseq=vseq)
        (dropped,) = tx.write(
            "forget/drop_empty",
            group=group,
            sessions=work.sessions,
            conversations=work.conversations,
        )
        tx.write(
            "forget/refresh_places",
            group=group,
            sessions=work.sessions,
            conversations=work.touched_conversations,
        )
        tx.write("forget/evidence_speakers", group=group, rows=work.evidence)
        tx.write(
            "forget/prune_entity_edges",
            group=group,
            gone=work.gone_ids,
            concepts=sorted({c for r in work.gone for c in r["concepts"]}),
        )
        tx.write("forget/set_knows", group=group, keep=knows_keep, drop=knows_drop)
        entities = sorted(set(work.touched_entities) | {r["person"] for r in work.evidence})
        aliases = _aliases(tx, group, entities)
        tx.write("forget/refresh_entities", group=group, ids=entities, aliases=aliases, vseq=vseq)
        tx.write("forget/restore_plans", group=group, ids=work.reopen, vseq=vseq)
        write_rows(
            tx,
            [
                (
                    "consolidation/merge_consolidated_facts",
                    "facts",
                    facts,
                    {"group_id": group},
                )
            ],
        )
        report = reconcile_pairs(tx, group, work.claim_pairs, config)
        tx.write("forget/settle_first_status", group=group, ids=work.conflicted, vseq=vseq)
        links = _relink(tx, group, work.touched_conversations, config)
        tx.write(
            "forget/audit",
            id=audit_id,
            group=group,
            kind=kind,
            turns=len(work.turns),
            records=len(work.gone),
            facts=len(work.pair_facts),
            actor=actor,
        )
        changed = {k: v for k, v in report.claims_changed.items() if v}
        return changed, links, int(dropped["sessions"]), int(dropped["conversations"])

    changed, links, sessions, conversations = store.transaction(write)
    summary.stale = stale_turns(store, group, work.touched_conversations, extractor)
    summary.facts_made = len(facts)
    summary.claims_changed = changed
    summary.links_changed = links
    summary.sessions_removed = sessions
    summary.conversations_removed = conversations
    summary.audit_id = audit_id
    summary.seconds = round(time.perf_counter() - started, 4)
    return summary


def audit_entries(store: Store, group: str) -> list[Row]:
    """The group's forget audit entries, oldest first (when, kind, counts, actor)."""
    return store.read("forget/audit_entries", group=group)
