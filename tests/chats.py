"""Small conversations built in code for tests: (speaker, text) lines, one session."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from cogmem.models import Conversation, Turn

AT = datetime(2023, 6, 5, 10, 0, tzinfo=UTC)


def conversation(
    lines: Sequence[tuple[str, str]],
    *,
    speakers: Sequence[str] | None = None,
    at: datetime = AT,
    conversation_id: str = "c1",
) -> Conversation:
    """The lines as one session's turns ``D1:1``, ``D1:2``, … a minute apart from ``at``;
    the speakers are ``speakers``, else everyone who speaks, sorted."""
    return Conversation(
        id=conversation_id,
        speakers=list(speakers) if speakers else sorted({s for s, _ in lines}),
        turns=[
            Turn(
                conversation=conversation_id,
                session="1",
                session_index=1,
                index=i,
                source_id=f"D1:{i + 1}",
                speaker=speaker,
                text=text,
                at=at + timedelta(minutes=i),
            )
            for i, (speaker, text) in enumerate(lines)
        ],
        source_format="jsonl",
    )
