"""The shipped statements that share Cypher fragments are generated from templates
(:mod:`cogmem.statements_build`, ``scripts/expand-cypher``): each fragment has one source,
and every shipped file equals what its template expands to."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cogmem import statements_build as build

pytestmark = pytest.mark.unit

SHIPPED = ("cypher", "operators", "consolidation")


def test_the_shipped_statements_are_the_generated_ones() -> None:
    texts = build.generated()
    assert len(texts) >= 18 and Path("operators/ground.cypher") in texts
    stale = build.stale()
    assert not stale, (
        "edit the template under scripts/cypher-templates, then run scripts/expand-cypher: "
        + ", ".join(p.as_posix() for p in stale)
    )


@pytest.mark.parametrize(("fragment", "uses"), [("claim_status_as_of", 17), ("record_fields", 15)])
def test_each_fragment_has_one_source_and_its_uses(fragment: str, uses: int) -> None:
    assert fragment in build.fragments()
    templates = build.ROOT / build.TEMPLATES
    found = sum(
        (templates / rel).read_text(encoding="utf-8").count(f"{{{{{fragment} ")
        for rel in build.generated()
    )
    assert found == uses


def _fragment_pattern(body: str) -> re.Pattern[str]:
    """The fragment's first line with any node variable: a copy written by hand."""
    first = body.splitlines()[0]
    return re.compile(re.escape(first).replace(re.escape("{{node}}"), r"\w+"))


def test_no_shipped_statement_copies_a_fragment_by_hand() -> None:
    generated = set(build.generated())
    patterns = {name: _fragment_pattern(body) for name, body in build.fragments().items()}
    by_hand = [
        f"{path.relative_to(build.ROOT).as_posix()} ({name})"
        for folder in SHIPPED
        for path in sorted((build.ROOT / folder).rglob("*.cypher"))
        for name, pattern in patterns.items()
        if path.relative_to(build.ROOT) not in generated
        and pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert not by_hand, "give these a template under scripts/cypher-templates: " + ", ".join(
        by_hand
    )


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(build.ROOT / build.TEMPLATES, tmp_path / build.TEMPLATES)
    for rel in build.generated():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(build.ROOT / rel, tmp_path / rel)
    return tmp_path


def test_an_edit_to_one_copy_is_found_and_regenerated(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    assert build.stale(root) == []
    ground = root / "operators" / "ground.cypher"
    text = ground.read_text(encoding="utf-8")
    ground.write_text(text.replace("'SUPERSEDED'", "'ENDED'"), encoding="utf-8")
    assert build.stale(root) == [Path("operators/ground.cypher")]
    assert build.write(root) == [Path("operators/ground.cypher")]
    assert ground.read_text(encoding="utf-8") == text and build.stale(root) == []


def test_an_edit_to_a_fragment_reaches_every_use(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    fragment = root / build.TEMPLATES / "fragments" / "claim_status_as_of.cypher"
    fragment.write_text(
        fragment.read_text(encoding="utf-8").replace("'SUPERSEDED'", "'ENDED'"), encoding="utf-8"
    )
    assert len(build.stale(root)) == 17
    build.write(root)
    assert "WHEN r.valid_to <= $as_of THEN 'ENDED'" in (
        root / "operators" / "ground.cypher"
    ).read_text(encoding="utf-8")


def test_expand_writes_a_fragment_at_its_column_with_the_node_named() -> None:
    parts = {"f": "a({{node}})\n    b({{node}})"}
    assert build.expand("RETURN {{f x}} AS y", parts) == "RETURN a(x)\n    b(x) AS y"
    with pytest.raises(build.TemplateError, match="no fragment 'g'"):
        build.expand("RETURN {{g x}}", parts)
    with pytest.raises(build.TemplateError, match="left unexpanded"):
        build.expand("RETURN {{f}}", parts)


def test_the_generated_text_loads_as_one_statement() -> None:
    from cogmem import statements

    body = statements.load("operators/nearest_records")
    assert "{{" not in body and "Generated from" not in body
    assert "WHEN n.valid_to <= $as_of THEN 'SUPERSEDED'" in body
