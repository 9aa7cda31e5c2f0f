"""Driver values become plain Python: temporal types converted, plain data passed through."""

from __future__ import annotations

from datetime import UTC, datetime

from neo4j import time as neo4j_time

from cogmem.store import _plain


def _dt() -> neo4j_time.DateTime:
    return neo4j_time.DateTime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)


def test_rows_of_scalars_pass_through_and_temporal_values_are_converted() -> None:
    links = [["ABOUT", "p1", True], ["LIKES", "c2", False]]
    assert _plain(links) is links  # a hub's thousands of relationships: not copied
    converted = _plain({"at": _dt(), "nested": [[_dt(), "x"]], "nulls": [[None, _dt()]]})
    when = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    assert converted == {"at": when, "nested": [[when, "x"]], "nulls": [[None, when]]}
    assert isinstance(converted["nulls"][0][1], datetime)
