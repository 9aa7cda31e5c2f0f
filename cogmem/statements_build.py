"""Generate the shipped ``.cypher`` statements that share fragments, from their templates.

A few pieces of Cypher are the same in many statements: the status a record had as of a
time (``claim_status_as_of``) and the fields every search operator returns of a record
(``record_fields``). Each has one source, ``scripts/cypher-templates/fragments/<name>.cypher``;
the statements that use one have a template, ``scripts/cypher-templates/<folder>/<name>.cypher``,
where ``{{claim_status_as_of n}}`` stands for the fragment with its ``{{node}}`` written as
``n``. This module expands every template into the shipped file of the same path
(``operators/…``), so each shipped statement stays whole: a person pastes it into Neo4j
Browser as it is, and :mod:`cogmem.statements` loads it as it is. A unit test checks that
the shipped files equal what this module generates (an edit to one copy fails it).

Run it after editing a template or a fragment (a source checkout only: the templates do
not ship)::

    scripts/expand-cypher            # write the shipped files
    scripts/expand-cypher --check    # list the stale ones, exit 1 if any
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path("scripts") / "cypher-templates"
FRAGMENTS = "fragments"
_USE = re.compile(r"\{\{([a-z_]+) ([A-Za-z_][A-Za-z0-9_]*)\}\}")
_NODE = "{{node}}"


class TemplateError(ValueError):
    pass


def _body(text: str) -> str:
    """A fragment file's text without its leading ``//`` lines and its final newline."""
    lines = text.splitlines()
    while lines and lines[0].lstrip().startswith("//"):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def fragments(root: Path = ROOT) -> dict[str, str]:
    """``name -> body`` of every fragment under ``root``'s templates."""
    folder = root / TEMPLATES / FRAGMENTS
    return {p.stem: _body(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.cypher"))}


def expand(template: str, parts: Mapping[str, str]) -> str:
    """``template`` with each ``{{name var}}`` replaced by fragment ``name``, its
    ``{{node}}`` written as ``var``. A fragment's later lines keep their own indentation,
    so a fragment is written at the column where it is used."""

    def one(match: re.Match[str]) -> str:
        name, node = match.group(1), match.group(2)
        if name not in parts:
            raise TemplateError(f"no fragment {name!r} (known: {', '.join(sorted(parts))})")
        return parts[name].replace(_NODE, node)

    expanded = _USE.sub(one, template)
    left = expanded.find("{{")
    if left >= 0:
        raise TemplateError(f"a use left unexpanded: {expanded[left : left + 60]!r}")
    return expanded


def generated(root: Path = ROOT) -> dict[Path, str]:
    """``shipped file (relative to root) -> the text its template expands to``."""
    parts = fragments(root)
    base = root / TEMPLATES
    out: dict[Path, str] = {}
    for path in sorted(base.rglob("*.cypher")):
        rel = path.relative_to(base)
        if rel.parts[0] == FRAGMENTS:
            continue
        header = (
            f"// Generated from {(TEMPLATES / rel).as_posix()} by scripts/expand-cypher: edit the\n"
            "// template (or its fragments), then run the script.\n"
        )
        out[rel] = header + expand(path.read_text(encoding="utf-8"), parts)
    return out


def stale(root: Path = ROOT) -> list[Path]:
    """The shipped files that differ from what their templates generate (or are missing)."""
    found: list[Path] = []
    for rel, text in generated(root).items():
        shipped = root / rel
        if not shipped.is_file() or shipped.read_text(encoding="utf-8") != text:
            found.append(rel)
    return found


def write(root: Path = ROOT) -> list[Path]:
    """Write every stale shipped file; the paths written."""
    written = stale(root)
    texts = generated(root)
    for rel in written:
        (root / rel).write_text(texts[rel], encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/expand-cypher", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only list stale files")
    args = parser.parse_args(argv)
    if not (ROOT / TEMPLATES).is_dir():
        print(f"no templates at {ROOT / TEMPLATES} (a source checkout only)", file=sys.stderr)
        return 2
    if args.check:
        found = stale()
        for rel in found:
            print(f"stale: {rel.as_posix()}")
        return 1 if found else 0
    for rel in write():
        print(f"wrote {rel.as_posix()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
