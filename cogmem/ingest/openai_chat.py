"""OpenAI-style ``messages`` conversations (see :mod:`cogmem.ingest.readers`)."""

from __future__ import annotations

from typing import Any

from cogmem.ingest.parsing import UNSET, Acc, Loc, Reader, describe
from cogmem.models import Conversation

_TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})


def read_openai(reader: Reader, text: str, doc: Any = UNSET) -> list[Conversation]:
    records: list[tuple[Loc, Any]]
    if doc is UNSET and reader.line_oriented(text):
        records = [(Loc(line=n), v) for n, v in reader.lines(text)]
    else:
        doc = reader.document(text) if doc is UNSET else doc
        if isinstance(doc, list):
            records = [(Loc().item(i), v) for i, v in enumerate(doc)]
        else:
            records = [(Loc(), doc)]
    accs: dict[str, Acc] = {}
    for k, (loc, raw) in enumerate(records, 1):
        rec = reader.obj(raw, loc, "an object with 'messages'")
        messages = reader.require(rec, "messages", loc)
        if not isinstance(messages, list):
            reader.fail(
                loc.field("messages"),
                f"field 'messages' must be a list, got {describe(messages)}",
            )
        cid = reader.ident(rec, "id", loc, required=False) or reader.ident(
            rec, "conversation", loc, required=False
        )
        cid = cid or (reader.path.stem if len(records) == 1 else f"{reader.path.stem}-{k}")
        acc = reader.new_conversation(accs, cid, loc)
        for i, raw_msg in enumerate(messages):
            mloc = loc.key("messages").item(i)
            msg = reader.obj(raw_msg, mloc, "a message object")
            has_name = msg.get("name") is not None
            speaker = reader.speaker(msg, "name" if has_name else "role", mloc)
            body = _content(reader, msg, mloc)
            at, _ = reader.when(msg, "timestamp", mloc)
            own_id = reader.ident(msg, "id", mloc, required=False)
            reader.add_turn(
                acc,
                mloc,
                session="1",
                session_index=1,
                source_id=own_id or f"1:{i + 1}",
                speaker=speaker,
                text=body,
                at=at,
            )
    return reader.finish(accs)


def _content(reader: Reader, msg: dict[str, Any], loc: Loc) -> str:
    if msg.get("content") is None:
        if "tool_calls" in msg or "function_call" in msg:
            return ""
        if "content" not in msg:
            reader.fail(loc, "field 'content' is missing")
        reader.fail(loc.key("content"), "field 'content' is null (and no 'tool_calls')")
    value = msg["content"]
    if isinstance(value, str):
        return reader.unicode(value, loc, "content")
    if not isinstance(value, list):
        reader.fail(
            loc.key("content"),
            f"field 'content' must be a string or a list of parts, got {describe(value)}",
        )
    texts: list[str] = []
    for j, raw_part in enumerate(value):
        ploc = loc.key("content").item(j)
        part = reader.obj(raw_part, ploc, "a content part object")
        kind = reader.string(part, "type", ploc)
        if kind in _TEXT_PART_TYPES:
            texts.append(reader.string(part, "text", ploc))
    return "\n".join(texts)
