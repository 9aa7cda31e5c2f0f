"""From turns and extracted records to the rows the ingest statements write, and the texts
that are embedded and searched (also used by reindex and import). Ids: :mod:`cogmem.ingest.ids`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from cogmem.extract.plans import completes, plan_status
from cogmem.ingest.ids import conversation_id, entity_id, group_key, record_id, session_id, turn_id
from cogmem.models import PLAN_TYPES, Conversation, ExtractedRecord, RecordType, RelType, Turn
from cogmem.text import topic_stems


def short_date(at: datetime | None) -> str:
    return f"{at.day} {at:%B %Y}" if at else ""


def turn_search_text(turn: Turn) -> str:
    """What the turn fulltext index sees: session date, speaker, verbatim text."""
    prefix = short_date(turn.at)
    return f"{prefix} {turn.speaker}: {turn.full_text}".strip()


def turn_embed_text(turn: Turn) -> str:
    return speaker_text(turn.speaker, turn.full_text)


def speaker_text(speaker: str, text: str) -> str:
    """The text a turn's vector is computed from (also used by reindex)."""
    return f"{speaker}: {text}"


def memory_embed_text(props: dict[str, Any]) -> str:
    """The text a memory record's vector is computed from (also used by reindex)."""
    return str(props.get("content") or props.get("name") or "")


@dataclass
class TurnRows:
    """Everything to write for one batch of turns."""

    turns: list[dict[str, Any]] = field(default_factory=list)
    next_pairs: list[dict[str, str]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)


def _entity_key(name: str) -> str:
    return " ".join(name.lower().split())


PLAN_LINK_RARE_MIN = 4
PLAN_LINK_RARE_SHARE = 0.02
"""A later record finishes or calls off a plan through a word they share only when that
word was said in at most max(MIN, SHARE · turns so far) of the conversation's earlier
turns: "marathon" links a race run to the plan to run it; "love", said in a fifth of a
long chat's turns, links nothing."""


def _name_stems(name: str) -> frozenset[str]:
    """The stems a person's name leaves in a record's words, possessive too."""
    return frozenset(topic_stems(name) | topic_stems(f"{name}'s")) if name else frozenset()


class GraphBuilder:
    """Accumulates rows for one conversation; entity rows are merged per batch."""

    def __init__(self, group: str, conversation: Conversation) -> None:
        self.group = group
        self.gkey = group_key(group)
        self.conversation = conversation
        self.cid = conversation_id(group, conversation.id)
        self.plans: dict[str, list[tuple[str, frozenset[str]]]] = {}
        """Per person, the plans (record id, the topic stems of its quote, the person's and
        the speakers' names left out) this conversation has told so far, oldest first: a
        later turn that does or calls off one of them is linked to it."""
        self.plan_turns: dict[str, str] = {}
        """The turn each remembered plan was told in (a turn may tell one plan as a Todo
        and as an Event: a later turn that does it supersedes both)."""
        self.speaker_stems = frozenset(
            stem for name in conversation.speakers for stem in _name_stems(name)
        )
        self.stem_turns: Counter[str] = Counter()
        """In how many of the conversation's turns so far each topic stem was said: a word
        said all the time ("love", "make") ties a plan to nothing."""
        self.turns_seen = 0

    def conversation_row(self) -> dict[str, Any]:
        return {
            "id": self.cid,
            "group_id": self.group,
            "group_key": self.gkey,
            "source_id": self.conversation.id,
            "speakers": self.conversation.speakers,
            "source_format": self.conversation.source_format,
        }

    def turn_row(self, turn: Turn) -> dict[str, Any]:
        tid = turn_id(self.group, turn.conversation, turn.source_id)
        return {
            "id": tid,
            "conversation_id": self.cid,
            "session_id": session_id(self.group, turn.conversation, turn.session),
            "session_index": turn.session_index,
            "session_date_text": turn.session_date_text,
            "session_at": turn.at,
            "props": {
                "group_id": self.group,
                "group_key": self.gkey,
                "conversation_id": self.cid,
                "session_id": session_id(self.group, turn.conversation, turn.session),
                "session_index": turn.session_index,
                "source_id": turn.source_id,
                "idx": turn.index,
                "speaker": turn.speaker,
                "text": turn.text,
                "caption": turn.caption,
                "full_text": turn.full_text,
                "at": turn.at,
                "search_text": turn_search_text(turn),
            },
        }

    def batch(
        self,
        turns: list[Turn],
        extractions: list[list[ExtractedRecord]],
        previous_tid: str | None,
        speaker_first_turn: dict[str, str],
    ) -> TurnRows:
        """Rows for a batch of consecutive turns and the records extracted from them."""
        rows = TurnRows()
        entities: dict[str, dict[str, Any]] = {}
        edges: dict[tuple[str, str, str], dict[str, Any]] = {}

        def entity(rtype: RecordType, name: str, tid: str | None, **props: Any) -> str:
            eid = entity_id(self.group, rtype, name)
            row = entities.get(eid)
            if row is None:
                row = entities[eid] = {
                    "id": eid,
                    "label": rtype.label,
                    "aliases": [],
                    "turn_ids": [],
                    "props": {
                        "group_id": self.group,
                        "group_key": self.gkey,
                        "type": rtype.value,
                        "name": name,
                        "content": name,
                        "conversation_id": self.cid,
                    },
                }
            if tid and tid not in row["turn_ids"]:
                row["turn_ids"].append(tid)
            for alias in props.pop("aliases", []):
                if alias not in row["aliases"] and alias != name:
                    row["aliases"].append(alias)
            row["props"].update({k: v for k, v in props.items() if v is not None})
            return eid

        def edge(src: str, rel: RelType, dst: str, at: datetime | None, **props: Any) -> None:
            if src != dst:
                edges.setdefault(
                    (src, rel.value, dst),
                    {
                        "src": src,
                        "type": rel.value,
                        "dst": dst,
                        "at": at,  # when it was first said: kept by the first write
                        "props": {k: v for k, v in props.items() if v is not None},
                    },
                )

        prev_id = previous_tid
        for turn, records in zip(turns, extractions, strict=True):
            trow = self.turn_row(turn)
            tid = trow["id"]
            rows.turns.append(trow)
            if prev_id is not None:
                rows.next_pairs.append({"from": prev_id, "to": tid})
            prev_id = tid
            speaker_tid = speaker_first_turn.get(turn.speaker)
            speaker = entity(
                RecordType.PERSON, turn.speaker, tid if speaker_tid in (None, tid) else None
            )
            if speaker_tid is None:
                speaker_first_turn[turn.speaker] = tid
            said = partial(edge, at=turn.at)
            for rec in records:
                self._record(rec, turn, tid, speaker, entity, said, rows)
            self.stem_turns.update(topic_stems(turn.text))
            self.turns_seen += 1
        rows.records = list(entities.values()) + rows.records
        rows.edges = list(edges.values())
        return rows

    def _record(
        self,
        rec: ExtractedRecord,
        turn: Turn,
        tid: str,
        speaker_eid: str,
        entity: Any,
        edge: Any,
        rows: TurnRows,
    ) -> None:
        if rec.type is RecordType.PERSON:
            pid = entity(RecordType.PERSON, rec.name or rec.content, tid, aliases=rec.aliases)
            if rec.relation == "KNOWS":
                edge(speaker_eid, RelType.KNOWS, pid, relation=rec.relation_label)
            return
        if rec.type is RecordType.CONCEPT:
            entity(RecordType.CONCEPT, _entity_key(rec.name or rec.content), tid)
            return
        rid = record_id(self.group, tid, rec)
        time = rec.time
        status = None
        if rec.type in PLAN_TYPES:
            status = rec.plan_status or plan_status(rec.quote, rec.tense, rec.type)
        rows.records.append(
            {
                "id": rid,
                "label": rec.type.label,
                "aliases": [],
                "turn_ids": [tid],
                "status": status,
                "props": {
                    "group_id": self.group,
                    "group_key": self.gkey,
                    "type": rec.type.value,
                    "content": rec.content,
                    "quote": rec.quote,
                    "speaker": rec.speaker or turn.speaker,
                    "subject": rec.subject,
                    "source": rec.source,
                    "target": rec.target,
                    "predicate": rec.predicate,
                    "sentiment": rec.sentiment,
                    "relation": rec.relation,
                    "confidence": rec.confidence,
                    "tense": rec.tense,
                    "at": turn.at,
                    "time_start": time.start if time else None,
                    "time_end": time.end if time else None,
                    "time_text": time.text if time else None,
                    "time_granularity": time.granularity if time else None,
                    "turn_id": tid,
                    "turn_source_id": turn.source_id,
                    "conversation_id": self.cid,
                },
            }
        )

        # Entities a record points at are evidenced by the same turn (their words are in
        # it), except the speaker, who is evidenced by where they speak or are named.
        def person(name: str) -> str:
            return speaker_eid if name == turn.speaker else entity(RecordType.PERSON, name, tid)

        subject = person(rec.subject) if rec.subject else speaker_eid
        concept_ids = [
            entity(RecordType.CONCEPT, _entity_key(c), tid) for c in rec.concepts if c and c.strip()
        ]
        person_ids = [person(p) for p in rec.persons if p]
        if status is not None:
            self._link_plan(rid, tid, status, rec, edge)
        if rec.type is RecordType.EVENT:
            edge(subject, RelType.PARTICIPATED_IN, rid)
            for pid in person_ids:
                if pid != subject:
                    edge(rid, RelType.INVOLVES, pid)
            for cid in concept_ids:
                edge(rid, RelType.INVOLVES, cid)
        elif rec.type is RecordType.CLAIM:
            source = person(rec.source) if rec.source else speaker_eid
            edge(source, RelType.CLAIMS, rid)
            if rec.target:
                # persons are named (capitalised); concept targets arrive lower-cased
                target_is_person = rec.target in rec.persons or rec.target[:1].isupper()
                target = (
                    person(rec.target)
                    if target_is_person
                    else entity(RecordType.CONCEPT, _entity_key(rec.target), tid)
                )
                edge(rid, RelType.TARGETS, target, predicate=rec.predicate, sentiment=rec.sentiment)
        else:
            if rec.type in (RecordType.FACT, RecordType.KEYFACT):
                edge(subject, RelType.HAS_FACT, rid)
            else:
                edge(rid, RelType.INVOLVES, speaker_eid)
            for cid in concept_ids:
                edge(rid, RelType.ABOUT, cid)
            if rec.relation in ("LIKES", "DISLIKES", "USES") and concept_ids:
                edge(subject, RelType(rec.relation), concept_ids[0], via=rid)

    def _link_plan(self, rid: str, tid: str, status: str, rec: ExtractedRecord, edge: Any) -> None:
        """A plan is remembered for its person; a record that does or calls off an earlier
        plan of the same person (a word of it in common) SUPERSEDES it."""
        who = rec.subject or rec.speaker or ""
        told = self.plans.setdefault(who, [])
        # the record's words without whose plan it is: its quote names its person ("Caroline
        # will do her best …", "Caroline loved the book"), a word every record of hers shares
        names = self.speaker_stems | _name_stems(who) | _name_stems(rec.speaker or "")
        if status == "PLANNED":
            if all(pid != rid for pid, _ in told):
                told.append((rid, frozenset(topic_stems(rec.quote)) - names))
                self.plan_turns[rid] = tid
            return
        if rec.quote.rstrip().endswith("?"):
            return  # "How did the race go?" asks; it does not tell that it was done
        common = max(PLAN_LINK_RARE_MIN, PLAN_LINK_RARE_SHARE * self.turns_seen)
        ignore = names | {w for w in topic_stems(rec.quote) if self.stem_turns[w] > common}
        earlier = completes(rec.quote, [(pid, q) for pid, q in told if pid != rid], ignore)
        if earlier is not None:
            turn = self.plan_turns.get(earlier)
            for pid, _ in told:
                if pid == earlier or (pid != rid and self.plan_turns.get(pid) == turn):
                    edge(rid, RelType.SUPERSEDES, pid, rule=status.lower())
