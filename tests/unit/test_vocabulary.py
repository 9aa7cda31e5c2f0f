"""One vocabulary: every label and relationship type a .cypher file names is one of models.py.

The checker reads a statement the way a person does: node patterns ``(n:Label)``,
``(:A|B)``, label predicates ``WHERE n:Label`` / ``SET n:Label``, relationship patterns
``[:TYPE]``, ``[r:TYPE|OTHER*1..2]``, and the string lists compared with ``type(r)`` or
``labels(n)``. String literals and comments are not read as patterns.
"""

from __future__ import annotations

import re
from typing import get_args

import pytest

from cogmem import statements
from cogmem.models import LABELS, PRIMARY_LABELS, RECORD_LABELS, NodeLabel, RecordType, RelType
from cogmem.transfer import Label, RelName

pytestmark = pytest.mark.unit

REL_TYPES = frozenset(t.value for t in RelType)

_STRING_OR_COMMENT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|//[^\n]*")
_NAME = r"`[^`]+`|[A-Za-z_]\w*"
_EXPR = rf"(?:[!%]*\s*(?:{_NAME}|%))(?:\s*(?:[:|&]\s*)+[!%]*\s*(?:{_NAME}|%))*"
# (n:Label ...), (:A|B), FOR (n:Label)
_NODE = re.compile(rf"\(\s*(?:{_NAME})?\s*:\s*({_EXPR})")
# [:TYPE], [r:TYPE|OTHER*1..2 {..}]
_REL = re.compile(rf"\[\s*(?:{_NAME})?\s*:\s*({_EXPR})")
# WHERE n:Label, SET n:Label, NOT m:Fact (written without a space, unlike a map's `key: value`)
_PREDICATE = re.compile(rf"(?<![\w$.`])(?:{_NAME}):(?!\s)({_EXPR})")
# type(r) IN ['A', 'B'] / type(r) = 'A'; 'Fact' IN labels(n)
_TYPE_STRINGS = re.compile(r"type\(\s*\w+\s*\)\s*(?:IN\s*\[([^\]]*)\]|=\s*('[^']*'))", re.I)
_LABEL_STRINGS = re.compile(r"('[^']*')\s+IN\s+labels\(", re.I)


def _names(expression: str) -> set[str]:
    return {quoted or plain for quoted, plain in re.findall(r"`([^`]+)`|(\w+)", expression)}


def _quoted(text: str) -> set[str]:
    return set(re.findall(r"'([^']*)'", text))


def vocabulary_in(cypher: str) -> tuple[set[str], set[str]]:
    """The node labels and relationship types a Cypher statement names."""
    labels: set[str] = set()
    types: set[str] = set()
    for m in _TYPE_STRINGS.finditer(cypher):
        types |= _quoted(m.group(1) or m.group(2))
    for m in _LABEL_STRINGS.finditer(cypher):
        labels |= _quoted(m.group(1))
    code = _STRING_OR_COMMENT.sub("''", cypher)
    for m in _REL.finditer(code):
        types |= _names(m.group(1))
    code = _REL.sub("[", code)
    for pattern in (_NODE, _PREDICATE):
        for m in pattern.finditer(code):
            labels |= _names(m.group(1))
    return labels, types


def unknown_in(cypher: str) -> tuple[set[str], set[str]]:
    """The labels and relationship types a statement names that models.py does not know."""
    labels, types = vocabulary_in(cypher)
    return labels - LABELS, types - REL_TYPES


def test_every_statement_names_only_the_vocabulary_of_models() -> None:
    seen_labels: set[str] = set()
    seen_types: set[str] = set()
    problems: dict[str, tuple[set[str], set[str]]] = {}
    for name in statements.all_names():
        text = statements.load(name)
        labels, types = vocabulary_in(text)
        seen_labels |= labels
        seen_types |= types
        bad = unknown_in(text)
        if bad[0] or bad[1]:
            problems[name] = bad
    assert not problems, problems
    # the scan really reads the files: the graph's own labels show up, and every type
    # (admin/import_relationships writes each one)
    assert {label.value for label in NodeLabel} <= seen_labels
    assert {"Person", "Concept", "Event", "Fact", "Claim"} <= seen_labels
    assert seen_types == REL_TYPES


@pytest.mark.parametrize(
    ("cypher", "labels", "types"),
    [
        ("MATCH (p:Persn {id: $id}) RETURN p", {"Persn"}, set()),
        ("MATCH (a:Person)-[:LIKE]->(c:Concept) RETURN c", set(), {"LIKE"}),
        ("MATCH (a)-[r:LIKES|DISLIKE*1..2 {via: $v}]-(b) RETURN b", set(), {"DISLIKE"}),
        ("MATCH (a)-[:LIKES|:USE]->(b) RETURN b", set(), {"USE"}),
        ("MATCH (m:Memory) WHERE m:Facts OR NOT m:Person RETURN m", {"Facts"}, set()),
        ("MATCH (m) SET m:Memory:Evnt RETURN m", {"Evnt"}, set()),
        ("MATCH (m:Memory|Cliam) RETURN m", {"Cliam"}, set()),
        ("MATCH (m:`Per son`) RETURN m", {"Per son"}, set()),
        ("CREATE INDEX x IF NOT EXISTS FOR ()-[r:LIKE]-() ON (r.via)", set(), {"LIKE"}),
        ("MATCH ()-[x]->() WHERE type(x) IN ['SUPERSEDES', 'CAUSE'] RETURN x", set(), {"CAUSE"}),
        ("MATCH ()-[x]->() WHERE type(x) = 'KNOW' RETURN x", set(), {"KNOW"}),
        ("MATCH (n) WHERE 'Fakt' IN labels(n) RETURN n", {"Fakt"}, set()),
    ],
)
def test_the_checker_catches_a_misspelt_label_or_type(
    cypher: str, labels: set[str], types: set[str]
) -> None:
    assert unknown_in(cypher) == (labels, types)


def test_the_checker_reads_patterns_not_strings_maps_or_comments() -> None:
    cypher = (
        "MATCH (t:Turn {text: 'said (x:Persn)-[:LIKE]->', kind: $Kind})\n"
        "WITH t, [k IN keys(t) WHERE k <> 'x:Evnt'] AS ks, t {.*, embedding: null} AS props\n"
        "MERGE (t)-[:EVIDENCED_BY]->(m:Memory) // (c:Comnet)-[:NOPE]->()\n"
        "RETURN t[ks[0]] AS first, {a: Count} AS m2"
    )
    assert vocabulary_in(cypher) == ({"Turn", "Memory"}, {"EVIDENCED_BY"})


def test_transfer_derives_its_vocabulary_from_models() -> None:
    assert get_args(Label) == (*(label.value for label in PRIMARY_LABELS), *RECORD_LABELS)
    assert get_args(RelName) == tuple(t.value for t in RelType)
    # store-wide settings are no group's; a group's forget audit entries travel apart, as
    # the file's `forgets`
    assert set(get_args(Label)) == LABELS - {NodeLabel.META.value, NodeLabel.FORGET_AUDIT.value}
    assert set(RECORD_LABELS) == {t.label for t in RecordType}
