"""The docs that list the code's own names stay complete: every setting in
docs/configuration.md, the README's first example and its glossary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cogmem.config import ENV_NAMES, Settings

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


def _table_names(markdown: str) -> set[str]:
    """The backticked names in the first cell of each table row."""
    names: set[str] = set()
    for line in markdown.splitlines():
        if line.startswith("| "):
            first = line.split("|")[1]
            names.update(re.findall(r"`([a-z0-9_]+)`", first))
    return names


def test_every_setting_is_in_the_configuration_table() -> None:
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    listed = _table_names(doc)
    missing = sorted(set(Settings.model_fields) - listed)
    assert not missing, f"docs/configuration.md lists no row for: {', '.join(missing)}"
    unknown = sorted(listed - set(Settings.model_fields))
    assert not unknown, f"docs/configuration.md lists what is no setting: {', '.join(unknown)}"


def test_every_environment_variable_is_in_the_configuration_doc() -> None:
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = sorted(v for names in ENV_NAMES.values() for v in names if f"`{v}`" not in doc)
    assert not missing, f"docs/configuration.md does not name: {', '.join(missing)}"


def test_the_table_check_sees_a_missing_row() -> None:
    assert _table_names("| `a` / `b` | `X` | 1 |\n| `c` | `Y` | `d` |\ntext `e`") == {"a", "b", "c"}


def _python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.S)


def test_the_readme_first_example_builds_one_memory() -> None:
    first = _python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))[0]
    built = re.findall(r"\bMemory(?:\.connect)?\(", first)
    assert len(built) == 1, first


def test_the_readme_has_a_glossary_of_its_words() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    glossary = readme[readme.index("### Glossary") :].split("\n## ")[0]
    terms = re.findall(r"^- \*\*([A-Za-z]+)\*\*", glossary, flags=re.M)
    for term in ("group", "turn", "record", "claim", "Anchor", "Traverse", "Intersect", "Ground"):
        assert term in terms, term
