"""A turn's time comes back from search at the UTC offset it was given with.

A message sent at 19:40 in UTC−7 is 02:40 the next day in UTC. Ingest keeps the offset
(Neo4j stores the zoned time), and search used to read the time back as epoch seconds in
UTC, so an answer cited the turn on the next day. Now the offset travels with the time:
the day an answer names is the speaker's, through Neo4j's indexes and through the
process's copy alike, and the instant is unchanged.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cogmem.api import Memory
from cogmem.config import Settings

pytestmark = pytest.mark.integration

TURNS = [
    # evening west of UTC: the next day in UTC
    ("Rosa", "I finally booked the ferry to Vashon for the weekend.", "2026-04-14T19:40:00-07:00"),
    # early morning east of UTC: the day before in UTC
    ("Kenji", "Just back from the fish market, bought a whole tuna.", "2026-04-15T06:10:00+09:00"),
    # no offset: UTC
    ("Rosa", "The tuna sounds amazing, save me some.", "2026-04-15T12:00:00"),
]
PLACES = {
    "Vashon": ("2026-04-14", timedelta(hours=-7)),
    "fish market": ("2026-04-15", timedelta(hours=9)),
    "save me": ("2026-04-15", timedelta(0)),
}


@pytest.fixture(scope="module")
def chat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("offsets") / "rosa_kenji.jsonl"
    lines = [
        {
            "conversation": "rosa-kenji",
            "session": "1",
            "id": f"r{i}",
            "speaker": speaker,
            "text": text,
            "timestamp": at,
        }
        for i, (speaker, text, at) in enumerate(TURNS, start=1)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def group(neo4j_settings: Settings, chat: Path) -> Iterator[str]:
    name = f"test-offset-{uuid.uuid4().hex[:8]}"
    settings = neo4j_settings.model_copy(update={"group": name, "llm": "none"})
    with Memory(settings) as mem:
        try:
            mem.ingest(chat)
            yield name
        finally:
            mem.forget()


@pytest.mark.parametrize("mode", ["off", "eager"])
def test_a_turn_comes_back_at_its_own_offset(
    neo4j_settings: Settings, group: str, mode: str
) -> None:
    settings = neo4j_settings.model_copy(
        update={"group": group, "llm": "none", "search_cache": mode}
    )
    with Memory(settings) as mem:
        for words, (day, offset) in PLACES.items():
            hits = mem.search(f"Who said {words}?", k=3)
            (hit,) = [h for h in hits if words in (h.turn_text or "")][:1]
            assert hit.turn_at is not None
            assert hit.turn_at.utcoffset() == offset, words
            assert hit.turn_at.date().isoformat() == day, words
            said = next(at for _, text, at in TURNS if words in text)
            expected = datetime.fromisoformat(said)
            if expected.tzinfo is None:
                expected = expected.replace(tzinfo=UTC)
            assert hit.turn_at == expected  # the same instant


def test_an_answer_names_the_day_the_speaker_said_it(neo4j_settings: Settings, group: str) -> None:
    settings = neo4j_settings.model_copy(update={"group": group, "llm": "none"})
    with Memory(settings) as mem:
        text = mem.ask("When did Rosa book the ferry to Vashon?").text
    assert "14 April 2026" in text, text
    assert "15 April 2026" not in text, text
