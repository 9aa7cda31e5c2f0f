"""The LoCoMo format: ``locomo10.json`` samples (see :mod:`cogmem.ingest.readers`).

A turn is said at its own ``timestamp`` where it has one (REALTALK's files in this layout
carry each message's time; a session there often runs past midnight), else at its
session's ``session_N_date_time``."""

from __future__ import annotations

import re
from typing import Any

from cogmem.ingest.parsing import Acc, Loc, Reader, describe
from cogmem.models import Conversation

_SESSION_KEY = re.compile(r"session_(\d+)")


def read_locomo(reader: Reader, doc: Any) -> list[Conversation]:
    root = Loc()
    if isinstance(doc, dict):
        samples = [(root, doc)]
    elif isinstance(doc, list):
        samples = [(root.item(i), s) for i, s in enumerate(doc)]
    else:
        reader.fail(root, f"expected a LoCoMo sample or a list of them, got {describe(doc)}")
    accs: dict[str, Acc] = {}
    for loc, raw in samples:
        sample = reader.obj(raw, loc, "a LoCoMo sample object")
        cid = reader.ident(sample, "sample_id", loc, required=True)
        assert cid is not None
        cloc = loc.key("conversation")
        conv = reader.obj(reader.require(sample, "conversation", loc), cloc, "an object")
        acc = reader.new_conversation(accs, cid, loc)
        for key in ("speaker_a", "speaker_b"):
            name = reader.speaker(conv, key, cloc)
            if name not in acc.speakers:
                acc.speakers.append(name)
        sessions: dict[int, str] = {}
        for key in conv:
            m = _SESSION_KEY.fullmatch(key)
            if m is None:
                continue
            n = int(m.group(1))
            if n in sessions:
                reader.fail(cloc.key(key), f"session {n} appears twice ('{sessions[n]}')")
            sessions[n] = key
        for n in sorted(sessions):
            key = sessions[n]
            sloc = cloc.key(key)
            turns = conv[key]
            if not isinstance(turns, list):
                reader.fail(sloc, f"session '{key}' must be a list of turns, got {describe(turns)}")
            at, date_text = reader.when(conv, f"{key}_date_time", cloc)
            for i, raw_turn in enumerate(turns):
                tloc = sloc.item(i)
                turn = reader.obj(raw_turn, tloc, "a turn object")
                own_at, _ = reader.when(turn, "timestamp", tloc)
                speaker = reader.speaker(turn, "speaker", tloc)
                source_id = reader.ident(turn, "dia_id", tloc, required=True)
                assert source_id is not None
                reader.add_turn(
                    acc,
                    tloc,
                    session=str(n),
                    session_index=n,
                    source_id=source_id,
                    speaker=speaker,
                    text=reader.string(turn, "text", tloc),
                    at=own_at or at,
                    date_text=date_text,
                    caption=reader.caption(turn, "blip_caption", tloc),
                )
    return reader.finish(accs)
