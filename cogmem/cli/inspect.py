"""CLI commands that show what the database holds: ``groups``, ``stats``, ``history`` and
``doctor``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from cogmem.cli.common import err, fail, friendly, open_memory, out, print_json
from cogmem.cli.options import GroupOpt, JsonOpt


def _when(value: Any) -> str:
    return f"{value:%Y-%m-%d %H:%M}" if isinstance(value, datetime) else ""


@friendly
def groups(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """List the groups in the database: turns, records, conversations, last ingest."""
    with open_memory(ctx) as mem:
        rows = mem.inspect.groups()
    if as_json:
        print_json(
            [
                {
                    **row,
                    "last_ingest": row["last_ingest"].isoformat() if row["last_ingest"] else None,
                }
                for row in rows
            ]
        )
        return
    if not rows:
        out.print(f"No groups on {escape(mem.settings.neo4j_uri)}: nothing is ingested yet.")
        return
    table = Table(title=f"Groups on {escape(mem.settings.neo4j_uri)}")
    for col, justify in (
        ("group", "left"),
        ("turns", "right"),
        ("records", "right"),
        ("conversations", "right"),
        ("last ingest (UTC)", "left"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(
            escape(str(row["group"])),
            str(row["turns"]),
            str(row["records"]),
            str(row["conversations"]),
            _when(row["last_ingest"]),
        )
    out.print(table)


@friendly
def stats(ctx: typer.Context, group: GroupOpt = None, as_json: JsonOpt = False) -> None:
    """One group at a glance: turns and the time they span, records by type,
    relationships by type, the last ingest."""
    with open_memory(ctx, group) as mem:
        data = mem.inspect.stats()
    if as_json:
        data["forgets"] = [
            {k: v.isoformat() if isinstance(v, datetime) else v for k, v in e.items()}
            for e in data.get("forgets") or []
        ]
        print_json({k: v.isoformat() if isinstance(v, datetime) else v for k, v in data.items()})
        return
    if data["nodes"] == 0:
        err.print(
            f"[yellow]warning:[/] group {escape(repr(data['group']))} holds nothing "
            "(`cogmem groups` lists the groups)",
            highlight=False,
            soft_wrap=True,
        )
    table = Table(title=f"Group '{escape(data['group'])}'")
    table.add_column("what")
    table.add_column("count", justify="right")
    for key in ("turns", "conversations", "records", "nodes"):
        table.add_row(key, str(data[key]))
    for key in ("first_said", "last_said", "last_ingest"):
        table.add_row(key.replace("_", " "), _when(data[key]))
    for label, count in sorted(data["labels"].items()):
        table.add_row(f"nodes: {escape(label)}", str(count))
    for rtype, count in sorted(data["relationships"].items()):
        table.add_row(f"relationships: {escape(rtype)}", str(count))
    forgets = data.get("forgets") or []
    table.add_row("forgets (audit entries)", str(len(forgets)))
    for entry in forgets[-5:]:
        actor = f" by {entry['actor']}" if entry.get("actor") else ""
        table.add_row(
            f"  forgot {_when(entry['at'])}{escape(actor)}",
            f"{entry['kind']}: {entry['turns']} turns, {entry['records']} records",
        )
    out.print(table)


@friendly
def history(
    ctx: typer.Context,
    person: Annotated[str, typer.Argument(help="The person (a name, any case).")],
    about: Annotated[
        str | None,
        typer.Option("--about", help="Only what is about this person or thing (its words)."),
    ] = None,
    group: GroupOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A person's opinions and plans over time: each with the interval it held (said …
    until what replaced, did or called it off was said), its status then and now, and the
    turns that opened and closed it. The same as the Browser kit's person_history query."""
    if not person.strip():
        raise fail("the person is empty: give a name, e.g. cogmem history Lena")
    with open_memory(ctx, group) as mem:
        rows = mem.history(person, about)
    if as_json:
        print_json(
            [
                {k: v.isoformat() if isinstance(v, datetime) else v for k, v in r.items()}
                for r in rows
            ]
        )
        return
    title = f"{escape(person)}: opinions and plans over time"
    if about:
        title += f" (about {escape(about)})"
    if not rows:
        out.print(
            f"Nothing found for {escape(repr(person))}"
            + (f" about {escape(repr(about))}" if about else "")
            + "."
        )
        return
    table = Table(title=title)
    for col in ("held from", "until", "what", "then → now", "opened by", "closed by"):
        table.add_column(col)
    for r in rows:
        closed = f"{r['closed_by']} ({r['how']})" if r["closed_by"] else ""
        table.add_row(
            _when(r["valid_from"]),
            _when(r["valid_to"]) or "holds",
            escape(str(r["what"])),
            escape(f"{r['opened_as'] or '-'} → {r['status_now'] or '-'}"),
            escape(str(r["opened_by"] or "")),
            escape(closed),
        )
    out.print(table)


@friendly
def doctor(
    ctx: typer.Context,
    group: Annotated[
        str | None,
        typer.Option("--group", "-g", help="Check only this group (default: every group)."),
    ] = None,
    fix: Annotated[bool, typer.Option("--fix", help="Repair what is found.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Find (and with --fix repair) what older versions left behind: times stored without
    a time zone (LOCAL DATETIME, from naive datetimes), which make a group's search fail.
    They are converted to UTC, as cogmem now reads every naive datetime."""
    root = ctx.find_root().obj
    chosen = group or (root.get("group") if isinstance(root, dict) else None)
    with open_memory(ctx, chosen) as mem:
        found = mem.admin.doctor(fix=fix, every_group=chosen is None)
        left = mem.admin.doctor(every_group=chosen is None) if fix and found else found
    where = f"group '{chosen}'" if chosen else "every group"
    if as_json:
        print_json(
            {
                "group": chosen,
                "local_times": found,
                "fixed": bool(fix and found),
                "left": sum(int(r["nodes"]) for r in left),
            }
        )
    elif not found:
        out.print(f"No problems found in {escape(where)}.")
    else:
        for row in found:
            out.print(
                f"group {escape(repr(row['group']))}: {row['nodes']} node(s) with "
                f"{escape(str(row['key']))} stored without a time zone (LOCAL DATETIME)"
                + (" — converted to UTC" if fix else "")
            )
        if not fix:
            err.print(
                f"Run `cogmem doctor{' --group ' + chosen if chosen else ''} --fix` to repair."
            )
    if left and fix:
        raise typer.Exit(1)
    if found and not fix:
        raise typer.Exit(3)
