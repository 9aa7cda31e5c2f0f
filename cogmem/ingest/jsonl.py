"""The JSONL chat format: one turn per line (see :mod:`cogmem.ingest.readers`)."""

from __future__ import annotations

from cogmem.ingest.parsing import Acc, Loc, Reader
from cogmem.models import Conversation


def read_jsonl(reader: Reader, text: str) -> list[Conversation]:
    accs: dict[str, Acc] = {}
    for lineno, value in reader.lines(text):
        loc = Loc(line=lineno)
        rec = reader.obj(value, loc, "a JSON object (one turn per line)")
        cid = reader.ident(rec, "conversation", loc, required=True)
        assert cid is not None
        session = reader.ident(rec, "session", loc, required=False) or "1"
        speaker = reader.speaker(rec, reader.pick(rec, ("speaker", "role"), loc), loc)
        body = reader.string(rec, reader.pick(rec, ("text", "content"), loc), loc)
        caption = reader.caption(rec, "caption", loc)
        at, _ = reader.when(rec, "timestamp", loc)
        own_id = reader.ident(rec, "id", loc, required=False)
        acc = accs.get(cid) or reader.new_conversation(accs, cid, loc)
        acc.n += 1
        session_index = acc.sessions.setdefault(session, len(acc.sessions) + 1)
        reader.add_turn(
            acc,
            loc,
            session=session,
            session_index=session_index,
            source_id=own_id or f"{session}:{acc.n}",
            speaker=speaker,
            text=body,
            at=at,
            caption=caption,
        )
    return reader.finish(accs)
