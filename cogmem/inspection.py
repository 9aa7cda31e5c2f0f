"""What a group holds, read back: ``mem.inspect`` (:class:`Inspect`), the reads of a
:class:`~cogmem.api.Memory`'s group that count and list its nodes (``cogmem stats``,
``cogmem groups``, the forget audit, tests and benchmarks), and the search's own parts
(:meth:`Inspect.operators`, :meth:`Inspect.controller`) for tuning and benchmarks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from cogmem.clients import Clients
from cogmem.forget import audit_entries
from cogmem.retrieval import Controller, Operators, RankWeights
from cogmem.store import Row


class Inspect:
    """Reads of one group (:attr:`group`) through its clients' store
    (:attr:`cogmem.api.Memory.inspect`); each waits first for the group's queued live turns
    where it lists what they write (counts, turns)."""

    def __init__(self, group: str, clients: Clients) -> None:
        self.group = group
        self.clients = clients

    def counts(self) -> dict[str, Any]:
        """Node count, nodes by label and relationships by type, for this group."""
        self.clients.live.settle(self.group)
        row = self.clients.store.read("admin/count_group", group=self.group)[0]
        return {
            "nodes": row["nodes"],
            "labels": dict(Counter(row["labels"])),
            "relationships": dict(Counter(row["types"])),
        }

    def record_labels(self) -> dict[str, int]:
        """This group's memory records by stored type label (a KeyFact is a ``Fact``)."""
        rows = self.clients.store.read("inspect/record_labels", group=self.group)
        return {str(r["label"]): int(r["count"]) for r in rows}

    def groups(self) -> list[Row]:
        """Every group in the database: ``group``, ``turns``, ``records``,
        ``conversations``, ``last_ingest`` (when its newest turn was written)."""
        return self.clients.store.read("inspect/groups")

    def span(self) -> dict[str, Any]:
        """This group's ``turns``, the first and last time said (``first_said``,
        ``last_said``) and when the newest was written (``last_ingest``)."""
        return self.clients.store.read("inspect/group_turn_span", group=self.group)[0]

    def stats(self) -> dict[str, Any]:
        """This group at a glance: turns (and the time they span), conversations, records
        by type label, relationships by type, the last ingest, and the forget audit entries
        (``forgets``: when, kind, how many turns and records, actor)."""
        counts = self.counts()  # first: it waits for the group's queued live turns
        span = self.span()
        forgets = self.forget_log()
        labels = counts["labels"]
        return {
            "group": self.group,
            "turns": int(span["turns"]),
            "conversations": int(labels.get("Conversation", 0)),
            "records": int(labels.get("Memory", 0)),
            "nodes": counts["nodes"],
            "first_said": span["first_said"],
            "last_said": span["last_said"],
            "last_ingest": span["last_ingest"],
            "labels": labels,
            "relationships": counts["relationships"],
            # what was forgotten (issue 50): when, kind, how many, which actor; never text
            "forgets": forgets,
        }

    def forget_log(self) -> list[Row]:
        """This group's forget audit entries: when, kind, how many turns/records, actor."""
        return audit_entries(self.clients.store, self.group)

    def size(self) -> dict[str, int]:
        """How many memory ``records`` and ``turns`` this group holds (index-backed)."""
        row = self.clients.store.read("inspect/group_size", group=self.group)[0]
        return {"records": int(row["records"]), "turns": int(row["turns"])}

    def conversations(self) -> list[Row]:
        """This group's conversations: ``id``, ``source_id``, ``complete``, ``speakers``."""
        return self.clients.store.read("inspect/conversations", group=self.group)

    def turns(self) -> list[Row]:
        """This group's turns, in conversation order."""
        self.clients.live.settle(self.group)
        return self.clients.store.read("inspect/turns", group=self.group)

    def records(self) -> list[Row]:
        """This group's memory records, each with the texts of the turns that evidence it."""
        return self.clients.store.read("inspect/records_with_turns", group=self.group)

    def facts(self) -> list[Row]:
        """This group's consolidated Facts (id, status, time span, support, …)."""
        return self.clients.store.read("consolidation/consolidated_facts", group_id=self.group)

    def fact_samples(self, limit: int = 5) -> list[Row]:
        """The consolidated Facts with the most supporting events, for reports."""
        return self.clients.store.read(
            "consolidation/consolidated_fact_samples", group_id=self.group, limit=limit
        )

    def link_candidates(self, types: Sequence[str]) -> list[Row]:
        """What the link job (``consolidate(jobs=["links"])``) reads: the group's records
        of ``types`` (consolidated Facts excluded) with their conversation, turn and vector."""
        return self.clients.store.read(
            "consolidation/link_candidates", group_id=self.group, types=list(types)
        )

    def job_edges(self, job: str) -> list[Row]:
        """The edges a consolidation job (``claim``, ``link``) owns in this group:
        ``src``, ``type``, ``dst``, ``rule``."""
        return self.clients.store.read("consolidation/job_edges", group_id=self.group, job=job)

    # -- the search's parts (tuning and benchmarks) ------------------------------------
    def operators(self, as_of: datetime | None = None) -> Operators:
        """The four retrieval operators, bound to this group (as of ``as_of``)."""
        return Operators(self.clients.store, self.group, as_of)

    def controller(
        self, weights: RankWeights | None = None, as_of: datetime | None = None
    ) -> Controller:
        """A search session over :meth:`operators` with this Memory's embedder and router,
        ranked with ``weights`` (default: the embedder's): ``.run(question, k=…)`` searches
        without the checks, waits and limits of :meth:`~cogmem.api.Memory.retrieve`."""
        return Controller(
            self.operators(as_of), self.clients.embedder, self.clients.router, weights
        )
