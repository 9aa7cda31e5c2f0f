"""CLI commands: data — ``forget``, ``export`` and ``import`` of one group."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    from rich.markup import escape
    from rich.table import Table

    from cogmem.cli import _memory, _print_json, err, friendly, out

    @app.command("forget")
    @friendly
    def forget(
        ctx: typer.Context,
        group: Annotated[
            str,
            typer.Option("--group", "-g", help="The memory space to delete (required)."),
        ],
        yes: Annotated[
            bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")
        ] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    ) -> None:
        """Delete a whole group: every node and relationship of it, nothing else.

        Turns, records and consolidated facts go; other groups are untouched. Asks first
        unless --yes."""
        with _memory(ctx, group) as mem:
            before = mem.counts()
            if before["nodes"] == 0:
                if as_json:
                    _print_json({"group": group, "deleted_nodes": 0})
                else:
                    out.print(f"Group '{escape(group)}' holds nothing: nothing to forget.")
                return
            rels = sum(before["relationships"].values())
            if not yes:
                typer.confirm(
                    f"Delete all {before['nodes']} nodes and {rels} relationships of group "
                    f"'{group}' on {mem.settings.neo4j_uri}? This cannot be undone",
                    abort=True,
                    err=True,
                )
            deleted = mem.forget()
        if as_json:
            _print_json({"group": group, "deleted_nodes": deleted, "relationships": rels})
        else:
            out.print(
                f"Forgot group '{escape(group)}': {deleted} nodes and their {rels} "
                "relationships deleted."
            )

    @app.command("export")
    @friendly
    def export(
        ctx: typer.Context,
        group: Annotated[
            str | None,
            typer.Option("--group", "-g", help="Memory space (COGMEM_GROUP; default 'default')."),
        ] = None,
        out_path: Annotated[
            Path | None,
            typer.Option("--out", "-o", help="Write here (mode 0600) instead of stdout."),
        ] = None,
        embeddings: Annotated[
            bool,
            typer.Option(
                "--embeddings/--no-embeddings",
                help="Include the vectors (default) or leave them out (import recomputes them).",
            ),
        ] = True,
    ) -> None:
        """Export a group as one JSON document (to stdout, or --out FILE).

        Nodes with labels and properties, relationships by type between node ids, vectors
        (unless --no-embeddings), datetimes as ISO strings, a format version."""
        from cogmem.transfer import export_group, write_export

        with _memory(ctx, group) as mem:
            data = export_group(mem, embeddings=embeddings)
        if out_path is None:
            sys.stdout.write(data.model_dump_json() + "\n")
        else:
            write_export(data, out_path)
        rels = len(data.relationships)
        err.print(
            f"Exported group '{escape(data.group)}': {len(data.nodes)} nodes, {rels} "
            f"relationships{'' if embeddings else ', no vectors'}"
            + (f" to {escape(str(out_path))}" if out_path else "")
        )

    @app.command("import")
    @friendly
    def import_(
        ctx: typer.Context,
        path: Annotated[Path, typer.Argument(help="A file written by `cogmem export`.")],
        group: Annotated[
            str | None,
            typer.Option(
                "--group",
                "-g",
                help="Import into this group (ids are rewritten); default: the file's group.",
            ),
        ] = None,
        reembed: Annotated[
            bool,
            typer.Option("--reembed", help="Recompute every vector with the configured embedder."),
        ] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    ) -> None:
        """Import a group from a `cogmem export` file (idempotent).

        The file is validated before anything is written; vectors of another embedder are
        refused unless --reembed. Into another group (--group) every id is rewritten, so
        the two never collide. Rerun an interrupted import to complete it."""
        from cogmem.transfer import check_vectors, import_group, read_export

        data = read_export(path)
        with _memory(ctx, group or data.group) as mem:
            if not reembed:  # before touching the database
                from cogmem.embed import embedder_identity

                check_vectors(data, *embedder_identity(mem.settings), path)
            summary = import_group(mem, data, reembed=reembed, path=path)
        if as_json:
            _print_json(summary.model_dump(mode="json"))
            return
        table = Table(
            title=f"Imported '{escape(summary.source_group)}' into group '{escape(summary.group)}'"
        )
        table.add_column("what")
        table.add_column("count", justify="right")
        for label, count in sorted(summary.labels.items()):
            table.add_row(f"nodes: {label}", str(count))
        for rtype, count in sorted(summary.types.items()):
            table.add_row(f"relationships: {rtype}", str(count))
        out.print(table)
        note: list[str] = [f"vectors {summary.vectors}"]
        if summary.ids_rewritten:
            note.append(
                f"ids rewritten for the new group ({summary.derived_ids} of "
                f"{summary.nodes} as an ingest would make them)"
            )
        out.print(", ".join(note))
