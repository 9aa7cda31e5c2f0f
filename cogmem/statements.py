"""Cypher is data: every statement lives in a ``.cypher`` file, one statement per file.

Statements are addressed by ``folder/name`` (``"schema/constraint_turn_id"``,
``"operators/ground"``). In an installed wheel the folders sit under
``cogmem/_statements``; in a source checkout they are the top-level folders.
Python only ever passes parameters to these texts; it never edits them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

FOLDERS = ("cypher", "operators", "consolidation")
OPTIONAL: dict[str, Any] = {"as_of": None, "as_of_cap": 0, "kind": None, "pool_size": 0}
"""Parameters a statement may read without every caller passing them, and their value when
not passed: ``$as_of`` (a search as of a time, issue 32) is null for "now"; ``$as_of_cap``
(how far ``group_size`` counts what was said by then) counts nothing then; ``$kind`` (what
``group_size`` counts of the group: 'turns', 'records', null for both) counts both;
``$pool_size`` (how many of an exact scan return their ids as a pool) none."""


class StatementNotFound(KeyError):
    pass


def _roots() -> dict[str, Path]:
    package = Path(__file__).resolve().parent
    roots: dict[str, Path] = {}
    for folder in FOLDERS:
        installed = package / "_statements" / folder
        source = package.parent / folder
        roots[folder] = installed if installed.is_dir() else source
    return roots


def _split(name: str) -> tuple[str, str]:
    """``schema/x`` → (cypher, schema/x); ``operators/x`` → (operators, x)."""
    head, _, rest = name.partition("/")
    if head in ("operators", "consolidation"):
        return head, rest
    return "cypher", name


@cache
def load(name: str) -> str:
    """The text of statement ``name`` (without the ``.cypher`` suffix)."""
    folder, rel = _split(name)
    path = _roots()[folder] / f"{rel}.cypher"
    if not path.is_file():
        raise StatementNotFound(f"no statement {name!r} (looked for {path})")
    text = path.read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    body = body.strip().rstrip(";").strip()
    if not body:
        raise StatementNotFound(f"statement {name!r} at {path} is empty")
    return body


def with_defaults(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with the :data:`OPTIONAL` parameters statement ``name`` reads and the
    caller left out (a new dict)."""
    return {**_optional(name), **params}


@cache
def _optional(name: str) -> dict[str, Any]:
    body = load(name)
    return {key: value for key, value in OPTIONAL.items() if f"${key}" in body}


def all_names() -> list[str]:
    """Every statement shipped, as names that :func:`load` accepts."""
    names: list[str] = []
    for folder, root in _roots().items():
        for path in sorted(root.rglob("*.cypher")):
            rel = path.relative_to(root).with_suffix("").as_posix()
            names.append(rel if folder == "cypher" else f"{folder}/{rel}")
    return names


def names_in(prefix: str) -> list[str]:
    """Statement names under a folder prefix, sorted (``"schema/"``)."""
    return [n for n in all_names() if n.startswith(prefix)]
