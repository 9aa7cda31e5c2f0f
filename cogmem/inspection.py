"""What a group holds, read back: :class:`Inspection`, the part of
:class:`~cogmem.api.Memory` that counts and lists a group's nodes (``cogmem stats``,
``cogmem doctor``, the inspection commands and tests)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cogmem.clients import Clients
from cogmem.store import Row, Store


class Inspection:
    """Reads of one group (:attr:`group`) through its clients' store; mixed into
    :class:`~cogmem.api.Memory`, which sets both."""

    group: str
    clients: Clients

    @property
    def store(self) -> Store:
        return self.clients.store

    def counts(self) -> dict[str, Any]:
        """Node count, nodes by label and relationships by type, for this group."""
        self.clients.live.settle(self.group)
        row = self.store.read("admin/count_group", group=self.group)[0]
        return {
            "nodes": row["nodes"],
            "labels": dict(Counter(row["labels"])),
            "relationships": dict(Counter(row["types"])),
        }

    def record_labels(self) -> dict[str, int]:
        """This group's memory records by stored type label (a KeyFact is a ``Fact``)."""
        rows = self.store.read("inspect/record_labels", group=self.group)
        return {str(r["label"]): int(r["count"]) for r in rows}

    def groups(self) -> list[Row]:
        """Every group in the database: ``group``, ``turns``, ``records``,
        ``conversations``, ``last_ingest`` (when its newest turn was written)."""
        return self.store.read("inspect/groups")

    def stats(self) -> dict[str, Any]:
        """This group at a glance: turns (and the time they span), conversations, records
        by type label, relationships by type, the last ingest, and the forget audit entries
        (``forgets``: when, kind, how many turns and records, actor)."""
        counts = self.counts()  # first: it waits for the group's queued live turns
        span = self.store.read("inspect/group_turn_span", group=self.group)[0]
        forgets = self.store.read("forget/audit_entries", group=self.group)
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

    def doctor(self, fix: bool = False, every_group: bool = False, batch: int = 5000) -> list[Row]:
        """Find (and with ``fix`` convert to UTC) the LOCAL DATETIME ``at`` /
        ``time_start`` / ``time_end`` values of this group (or of ``every_group``) that a
        naive datetime left; rows ``group``, ``key``, ``nodes`` of what was found."""
        group = None if every_group else self.group
        found = self.store.read("admin/doctor_local_times", group=group)
        if fix and found:
            while self.store.write("admin/doctor_fix_local_times", group=group, batch=batch)[0][
                "fixed"
            ]:
                pass
        return found

    def size(self) -> dict[str, int]:
        """How many memory ``records`` and ``turns`` this group holds (index-backed)."""
        row = self.store.read("inspect/group_size", group=self.group)[0]
        return {"records": int(row["records"]), "turns": int(row["turns"])}

    def conversations(self) -> list[Row]:
        """This group's conversations: ``id``, ``source_id``, ``complete``, ``speakers``."""
        return self.store.read("inspect/conversations", group=self.group)

    def turns(self) -> list[Row]:
        """This group's turns, in conversation order."""
        self.clients.live.settle(self.group)
        return self.store.read("inspect/turns", group=self.group)

    def records(self) -> list[Row]:
        """This group's memory records, each with the texts of the turns that evidence it."""
        return self.store.read("inspect/records_with_turns", group=self.group)

    def facts(self) -> list[Row]:
        """This group's consolidated Facts (id, status, time span, support, …)."""
        return self.store.read("consolidation/consolidated_facts", group_id=self.group)

    def fact_samples(self, limit: int = 5) -> list[Row]:
        """The consolidated Facts with the most supporting events, for reports."""
        return self.store.read(
            "consolidation/consolidated_fact_samples", group_id=self.group, limit=limit
        )
