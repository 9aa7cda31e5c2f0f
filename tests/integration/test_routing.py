"""The search path over a routing ``neo4j://`` URI, as against a cluster or Aura.

A single server answers the routing protocol too (it names itself reader and writer), so
this runs the same code a cluster would: reads routed with ``routing_=READ``, writes to the
leader, every transaction chained by the driver's bookmark manager so that a search sees
the ingest just before it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlparse

import neo4j
import pytest

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.store import Store
from tests.chats import conversation
from tests.internals import store_of

pytestmark = pytest.mark.integration

AT = datetime(2023, 6, 5, 10, 0, tzinfo=UTC)


def routing_uri(uri: str) -> str:
    parsed = urlparse(uri)
    return f"neo4j://{parsed.hostname}:{parsed.port or 7687}"


@pytest.fixture
def routed(neo4j_settings: Settings, store: Store, group: str) -> Iterator[Memory]:
    """A Memory of its own (its own routing driver) on the test group."""
    settings = neo4j_settings.model_copy(
        update={"neo4j_uri": routing_uri(neo4j_settings.neo4j_uri), "group": group}
    )
    with Memory(settings) as mem:
        yield mem


def spy_routing(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record the routing of every ``execute_query`` the Memory's driver runs, and of every
    session it opens (a session's default access mode is WRITE unless it says READ)."""
    driver = store_of(mem)._driver
    seen: list[Any] = []
    real_query, real_session = driver.execute_query, driver.session

    def execute_query(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("routing_"))
        return real_query(*args, **kwargs)

    def session(*args: Any, **kwargs: Any) -> Any:
        read = kwargs.get("default_access_mode") == neo4j.READ_ACCESS
        seen.append(neo4j.RoutingControl.READ if read else neo4j.RoutingControl.WRITE)
        return real_session(*args, **kwargs)

    monkeypatch.setattr(driver, "execute_query", execute_query)
    monkeypatch.setattr(driver, "session", session)
    return seen


def test_search_over_a_routing_uri_sees_the_write_before_it(
    routed: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert routed.settings.neo4j_uri.startswith("neo4j://")
    assert isinstance(store_of(routed)._driver, neo4j.Neo4jDriver)  # the routing driver
    routing = spy_routing(routed, monkeypatch)

    routed.ingest_conversations(
        [
            conversation(
                [
                    ("Alice", "I love hiking in the Alps, it clears my head."),
                    ("Bob", "I adopted a dog called Pixel yesterday."),
                ]
            )
        ]
    )
    assert store_of(routed).bookmarks.get_bookmarks()  # the writes left bookmarks to wait for
    assert neo4j.RoutingControl.WRITE in routing

    routing.clear()
    hits = routed.search("What is the name of Bob's dog?", k=5)
    assert any("Pixel" in (e.turn_text or e.content) for e in hits)
    assert routing and set(routing) == {neo4j.RoutingControl.READ}  # search only reads

    # a live turn (read tail, write) and at once a search that must see it
    routed.add_turn("Alice", "My sister Clara moved to Lisbon last month.", at=AT + timedelta(1))
    hits = routed.search("Where did Clara move to?", k=5)
    assert any("Lisbon" in (e.turn_text or e.content) for e in hits)
    assert routed.inspect.size()["turns"] == 3


def test_for_group_shares_the_routing_driver_and_its_bookmarks(routed: Memory) -> None:
    other = routed.for_group(routed.group)
    assert store_of(other) is store_of(routed)
    other.add_turn("Bob", "We decided to paint the fence green on Sunday.", at=AT)
    assert [c["complete"] for c in routed.inspect.conversations()] == [True]
    hits = routed.search("What colour will the fence be?", k=5)
    assert any("green" in (e.turn_text or e.content) for e in hits)
