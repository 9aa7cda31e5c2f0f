"""Readers: LoCoMo JSON, JSONL chat, OpenAI messages → Conversations of verbatim Turns."""

from __future__ import annotations

import json
import logging
import pickle
import random
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cogmem.ingest import parsing, readers
from cogmem.ingest.readers import (
    ReaderError,
    ReadResult,
    detect_format,
    read_conversations,
    read_file,
)
from cogmem.models import Conversation

pytestmark = pytest.mark.unit

HYPO = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
CYPHER = "'}) DETACH DELETE n //"


@pytest.fixture(autouse=True)
def _no_temporal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Use the readers' own fallback date parser, whatever cogmem.temporal does."""
    monkeypatch.setitem(sys.modules, "cogmem.temporal", None)
    parsing._temporal_parser.cache_clear()
    yield
    parsing._temporal_parser.cache_clear()


def write(tmp: Path, name: str, data: Any) -> Path:
    path = tmp / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_text(json.dumps(data), encoding="utf-8")
    return path


def jsonl(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def sample(
    sample_id: str = "conv-1",
    sessions: dict[int, list[dict[str, Any]]] | None = None,
    dates: dict[int, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    if sessions is None:
        sessions = {
            1: [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bob!"},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Hey Ann."},
            ]
        }
    conv: dict[str, Any] = {"speaker_a": "Ann", "speaker_b": "Bob"}
    for n, turns in sessions.items():
        date = (dates or {}).get(n, f"1:56 pm on {n} May, 2023")
        conv[f"session_{n}_date_time"] = date
        conv[f"session_{n}"] = turns
    return {"sample_id": sample_id, "conversation": conv, **extra}


def err(path: Path, fmt: str = "auto") -> ReaderError:
    with pytest.raises(ReaderError) as info:
        read_conversations(path, fmt)
    return info.value


# --------------------------------------------------------------------------- LoCoMo


def test_locomo_basic(tmp_path: Path) -> None:
    turns1 = [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bob!"},
        {
            "speaker": " Bob ",
            "dia_id": "D1:2",
            "text": "Look at this.",
            "img_url": ["https://example.org/x.jpg"],
            "blip_caption": "a photo of a dog",
            "query": "dog",
            "re-download": True,
        },
    ]
    turns2 = [{"speaker": "Ann", "dia_id": "D2:1", "text": "Back again."}]
    data = [
        sample(
            "conv-1",
            {1: turns1, 2: turns2},
            {1: "1:56 pm on 8 May, 2023", 2: "12:40 am on 27 March, 2024"},
            qa=[{"question": "?", "answer": "x", "evidence": ["D1:1"], "category": 1}],
            event_summary={},
            observation={},
            session_summary={},
        )
    ]
    convs, fmt = read_conversations(write(tmp_path, "l.json", data))
    assert fmt == "locomo"
    assert len(convs) == 1
    conv = convs[0]
    assert conv.id == "conv-1"
    assert conv.speakers == ["Ann", "Bob"]
    assert conv.source_format == "locomo"
    assert [t.source_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1"]
    assert [t.index for t in conv.turns] == [0, 1, 2]
    assert [(t.session, t.session_index) for t in conv.turns] == [("1", 1), ("1", 1), ("2", 2)]
    assert conv.turns[1].speaker == "Bob"
    assert conv.turns[1].caption == "a photo of a dog"
    assert conv.turns[1].full_text == "Look at this. [image: a photo of a dog]"
    assert conv.turns[0].caption is None
    # turns of one session share the session's time exactly
    assert conv.turns[0].at == conv.turns[1].at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert conv.turns[2].at == datetime(2024, 3, 27, 0, 40, tzinfo=UTC)
    assert conv.turns[0].session_date_text == "1:56 pm on 8 May, 2023"
    assert all(t.conversation == "conv-1" for t in conv.turns)


def test_locomo_sessions_ordered_numerically(tmp_path: Path) -> None:
    sessions = {n: [{"speaker": "Ann", "dia_id": f"D{n}:1", "text": f"s{n}"}] for n in range(1, 12)}
    keys = list(sessions)
    random.Random(4).shuffle(keys)
    data = sample(sessions={n: sessions[n] for n in keys})
    (conv,), _ = read_conversations(write(tmp_path, "l.json", data))
    assert [t.session for t in conv.turns] == [str(n) for n in range(1, 12)]
    assert [t.session_index for t in conv.turns] == list(range(1, 12))
    assert [t.index for t in conv.turns] == list(range(11))
    assert conv.turns[9].text == "s10" and conv.turns[8].text == "s9"


def test_locomo_single_sample_object_and_empty_session(tmp_path: Path) -> None:
    data = sample(sessions={1: [], 2: [{"speaker": "Bob", "dia_id": "D2:1", "text": "x"}]})
    (conv,), fmt = read_conversations(write(tmp_path, "one.json", data))
    assert fmt == "locomo"
    assert [t.source_id for t in conv.turns] == ["D2:1"]


def test_locomo_missing_date_and_extra_speaker(tmp_path: Path) -> None:
    data = sample()
    del data["conversation"]["session_1_date_time"]
    data["conversation"]["session_1"].append({"speaker": "Cy", "dia_id": "D1:3", "text": "me!"})
    (conv,), _ = read_conversations(write(tmp_path, "l.json", data))
    assert all(t.at is None and t.session_date_text is None for t in conv.turns)
    assert conv.speakers == ["Ann", "Bob", "Cy"]


def test_locomo_integer_ids(tmp_path: Path) -> None:
    data = sample(sample_id=7, sessions={1: [{"speaker": "Ann", "dia_id": 3, "text": "x"}]})
    (conv,), _ = read_conversations(write(tmp_path, "l.json", data))
    assert conv.id == "7" and conv.turns[0].source_id == "3"


def test_realistic_locomo_sample(tmp_path: Path) -> None:
    """Detect + read a multi-session LoCoMo-shaped file, as the published one is laid out."""
    rng = random.Random(26)
    samples = []
    expected: dict[str, int] = {}
    for s, (a, b) in enumerate([("Caroline", "Melanie"), ("James", "John")]):
        conv: dict[str, Any] = {"speaker_a": a, "speaker_b": b}
        total = 0
        for n in range(1, 20):
            month = ["January", "March", "May", "June", "August", "October"][n % 6]
            conv[f"session_{n}_date_time"] = f"{n % 12 + 1}:{n:02d} pm on {n} {month}, 2023"
            turns = []
            for i in range(1, rng.randint(8, 25)):
                turn = {
                    "speaker": (a, b)[i % 2],
                    "dia_id": f"D{n}:{i}",
                    "text": f"Session {n} turn {i}: I went to the pottery class yesterday!",
                }
                if rng.random() < 0.2:
                    turn.update(
                        img_url=["https://i.redd.it/x.jpg"],
                        query="pottery bowl",
                        blip_caption="a photo of a bowl with a colorful design on it",
                    )
                turns.append(turn)
            conv[f"session_{n}"] = turns
            total += len(turns)
        samples.append(
            {
                "qa": [
                    {
                        "question": "When?",
                        "answer": "7 May 2023",
                        "evidence": ["D1:3"],
                        "category": 2,
                    }
                ],
                "conversation": conv,
                "event_summary": {"events_session_1": {a: ["x"], "date": "8 May, 2023"}},
                "observation": {"session_1_observation": {a: [["obs", "D1:1"]]}},
                "session_summary": {"session_1_summary": "they talk"},
                "sample_id": f"conv-{26 + s}",
            }
        )
        expected[f"conv-{26 + s}"] = total
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps(samples, indent=2), encoding="utf-8")
    assert detect_format(path) == "locomo"
    convs, fmt = read_conversations(path)
    assert fmt == "locomo"
    assert {c.id: len(c.turns) for c in convs} == expected
    for conv in convs:
        assert [t.index for t in conv.turns] == list(range(len(conv.turns)))
        sessions = [t.session_index for t in conv.turns]
        assert sessions == sorted(sessions) and sessions[-1] == 19
        assert all(t.at is not None and t.at.tzinfo is UTC for t in conv.turns)
        assert all(t.source_id.startswith(f"D{t.session}:") for t in conv.turns)
        assert any(t.caption and "[image:" in t.full_text for t in conv.turns)
        assert len({t.source_id for t in conv.turns}) == len(conv.turns)


# --------------------------------------------------------------------------- JSONL


def test_jsonl_basic(tmp_path: Path) -> None:
    text = jsonl(
        {
            "conversation": "c1",
            "speaker": "Ann",
            "text": "one",
            "timestamp": "2024-01-02T03:04:05Z",
        },
        {"conversation": "c2", "role": "user", "content": "other", "id": "m-9"},
        {
            "conversation": "c1",
            "speaker": " Bob",
            "text": "two",
            "session": "s2",
            "timestamp": "2024-01-02T05:04:05+02:00",
        },
        {
            "conversation": "c1",
            "speaker": "Ann",
            "text": "three",
            "timestamp": "2024-01-02T03:04:05",
        },
    )
    text = text.replace("\n", "\n\n   \n", 1)  # blank lines are skipped
    result = read_file(write(tmp_path, "chat.jsonl", text))
    assert result.format == "jsonl"
    c1, c2 = result.conversations
    assert (c1.id, c2.id) == ("c1", "c2")
    assert c1.speakers == ["Ann", "Bob"]
    assert [t.text for t in c1.turns] == ["one", "two", "three"]
    assert [t.source_id for t in c1.turns] == ["1:1", "s2:2", "1:3"]
    assert [t.session for t in c1.turns] == ["1", "s2", "1"]
    assert [t.session_index for t in c1.turns] == [1, 2, 1]
    assert [t.index for t in c1.turns] == [0, 1, 2]
    expected_at = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert [t.at for t in c1.turns] == [expected_at] * 3
    assert c2.turns[0].source_id == "m-9"
    assert c2.turns[0].speaker == "user" and c2.turns[0].at is None
    assert c2.speakers == ["user"]


def test_jsonl_crlf_unix_time_and_line_separators(tmp_path: Path) -> None:
    odd = "a\u2028b\u2029c\x85d\r\ne"  # splitlines() would break these lines
    lines = [
        json.dumps(
            {"conversation": 1, "speaker": "Ann", "text": odd, "timestamp": 0}, ensure_ascii=False
        ),
        json.dumps({"conversation": 1, "speaker": "Bob", "text": "ok", "caption": "pic"}),
    ]
    (conv,), fmt = read_conversations(write(tmp_path, "c.jsonl", "\r\n".join(lines) + "\r\n"))
    assert fmt == "jsonl" and conv.id == "1"
    assert conv.turns[0].text == odd
    assert conv.turns[0].at == datetime(1970, 1, 1, tzinfo=UTC)
    assert conv.turns[1].caption == "pic"


# --------------------------------------------------------------------------- OpenAI


def test_openai_single_object(tmp_path: Path) -> None:
    data = {
        "messages": [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "name": "alice", "content": "Hi", "timestamp": "2024-05-01T10:00:00Z"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Hello"},
                    {"type": "image_url", "image_url": {"url": "x"}},
                    {"type": "text", "text": "there"},
                ],
            },
            {"role": "assistant", "content": None, "tool_calls": [{"id": "t"}]},
            {"role": "tool", "content": "42", "id": "call-1"},
        ]
    }
    result = read_file(write(tmp_path, "chat-export.json", data))
    assert result.format == "openai"
    (conv,) = result.conversations
    assert conv.id == "chat-export"
    assert conv.speakers == ["system", "alice", "assistant", "tool"]
    assert [t.text for t in conv.turns] == ["You are helpful.", "Hi", "Hello\nthere", "42"]
    assert [t.source_id for t in conv.turns] == ["1:1", "1:2", "1:3", "call-1"]
    assert [t.index for t in conv.turns] == [0, 1, 2, 3]
    assert conv.turns[1].at == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert [s.source_id for s in result.skipped] == ["1:4"]  # tool call without content


def test_openai_list_and_ids(tmp_path: Path) -> None:
    data = [
        {"id": "a", "messages": [{"role": "user", "content": "x"}]},
        {"conversation": "b", "messages": [{"role": "user", "content": "y"}]},
        {"messages": [{"role": "user", "content": "z"}]},
    ]
    convs, fmt = read_conversations(write(tmp_path, "many.json", data))
    assert fmt == "openai"
    assert [c.id for c in convs] == ["a", "b", "many-3"]


def test_openai_jsonl_lines(tmp_path: Path) -> None:
    text = jsonl(
        {"messages": [{"role": "user", "content": "x"}]},
        {"messages": [{"role": "assistant", "content": "y"}]},
    )
    path = write(tmp_path, "ft.jsonl", text)
    assert detect_format(path) == "openai"
    convs, fmt = read_conversations(path)
    assert fmt == "openai" and [c.id for c in convs] == ["ft-1", "ft-2"]
    bad = write(tmp_path, "ft2.jsonl", text + json.dumps({"messages": [{"role": "user"}]}) + "\n")
    assert str(err(bad)) == f"{bad}:line 3, $.messages[0]: field 'content' is missing"


# --------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("a.json", [sample()], "locomo"),
        ("a.json", sample(), "locomo"),
        ("a.json", {"messages": []}, "openai"),
        ("a.json", [{"messages": []}], "openai"),
        ("a.txt", jsonl({"conversation": "c", "speaker": "a", "text": "t"}) * 2, "jsonl"),
        ("a.json", jsonl({"conversation": "c", "speaker": "a", "text": "t"}), "jsonl"),
        (
            "a.JSONL",
            json.dumps({"conversation": "c", "speaker": "a", "text": "t"}, indent=1),
            "jsonl",
        ),
        ("a.ndjson", jsonl({"conversation": "c", "speaker": "a", "text": "t"}), "jsonl"),
    ],
)
def test_detect_format(tmp_path: Path, name: str, content: Any, expected: str) -> None:
    assert detect_format(write(tmp_path, name, content)) == expected


def test_auto_says_which_and_forced_format(tmp_path: Path) -> None:
    path = write(tmp_path, "x.json", [sample()])
    assert read_conversations(path)[1] == "locomo"
    assert read_conversations(path, "LoCoMo")[1] == "locomo"
    # a forced format reads the file as that format and says what is wrong
    assert "field 'messages' is missing" in str(err(path, "openai"))


def test_bom_is_not_content(tmp_path: Path) -> None:
    path = write(tmp_path, "b.json", b"\xef\xbb\xbf" + json.dumps([sample()]).encode())
    assert read_conversations(path)[0][0].turns[0].text == "Hi Bob!"


# --------------------------------------------------------------------------- text and empty turns


def test_text_kept_verbatim(tmp_path: Path) -> None:
    texts = [
        "  leading and trailing  ",
        "inner   spaces\tand\ttabs\n\nand lines",
        "emoji 👩\u200d👩\u200d👧 ZWJ, RTL \u202eevil\u202c, combining e\u0301, NUL \x00 char",
        CYPHER,
        "x" * 100_000,
    ]
    records = [{"conversation": "c", "speaker": "a", "text": t} for t in texts]
    (conv,), _ = read_conversations(write(tmp_path, "v.jsonl", jsonl(*records)))
    assert [t.text for t in conv.turns] == texts


def test_empty_text_is_skipped_and_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    records = [
        {"conversation": "c", "speaker": "a", "text": "first"},
        {"conversation": "c", "speaker": "a", "text": ""},
        {"conversation": "c", "speaker": "b", "text": " \n\t "},
        {"conversation": "c", "speaker": "b", "text": "", "caption": "a photo of a cat"},
        {"conversation": "c", "speaker": "a", "text": "last"},
    ]
    path = write(tmp_path, "e.jsonl", jsonl(*records))
    with caplog.at_level(logging.WARNING, logger="cogmem.ingest.readers"):
        result = read_file(path)
    (conv,) = result.conversations
    assert [t.text for t in conv.turns] == ["first", "", "last"]
    assert [t.source_id for t in conv.turns] == ["1:1", "1:4", "1:5"]
    assert [t.index for t in conv.turns] == [0, 1, 2]
    assert conv.turns[1].full_text == "[image: a photo of a cat]"
    assert [(s.location, s.source_id) for s in result.skipped] == [
        ("line 2", "1:2"),
        ("line 3", "1:3"),
    ]
    assert result.turn_count == 3
    assert "skipped 2 turn(s)" in caplog.text


def test_only_empty_turns_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "e.jsonl", jsonl({"conversation": "c", "speaker": "a", "text": ""}))
    assert str(err(path)) == f"{path}: no turns found in 1 conversation(s); 1 empty turn(s) skipped"


# --------------------------------------------------------------------------- dates


def test_parse_when_fallback_and_temporal_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parsing.parse_when("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parsing.parse_when("2023-05-08T13:56:00+02:00") == datetime(
        2023, 5, 8, 11, 56, tzinfo=UTC
    )
    assert parsing.parse_when("not a date") is None
    assert parsing.parse_when("  ") is None
    fake = ModuleType("cogmem.temporal")
    fake.parse_session_date = lambda s: datetime(2001, 1, 1) if s == "new year" else None
    monkeypatch.setitem(sys.modules, "cogmem.temporal", fake)
    parsing._temporal_parser.cache_clear()
    assert parsing.parse_when("new year") == datetime(2001, 1, 1, tzinfo=UTC)
    assert parsing.parse_when("2020-01-01") == datetime(2020, 1, 1, tzinfo=UTC)  # falls back


# --------------------------------------------------------------------------- errors


def _locomo_with(turn: dict[str, Any] | None = None, **conv_overrides: Any) -> list[Any]:
    s = sample(
        sessions={
            n: [{"speaker": "Ann", "dia_id": f"D{n}:{i}", "text": "ok"} for i in range(1, 6)]
            for n in (1, 2, 3)
        }
    )
    if turn is not None:
        s["conversation"]["session_3"][4] = turn
    s["conversation"].update(conv_overrides)
    return [s]


ERROR_CASES: list[tuple[str, str, Any, str]] = [
    # (id, file name, content, expected "location: message" after the path)
    (
        "text-not-string",
        "l.json",
        _locomo_with({"speaker": "Ann", "dia_id": "D3:5", "text": 5}),
        ":$[0].conversation.session_3[4].text: field 'text' must be a string, got number 5",
    ),
    (
        "text-missing",
        "l.json",
        _locomo_with({"speaker": "Ann", "dia_id": "D3:5"}),
        ":$[0].conversation.session_3[4]: field 'text' is missing",
    ),
    (
        "speaker-empty",
        "l.json",
        _locomo_with({"speaker": "  ", "dia_id": "D3:5", "text": "x"}),
        ":$[0].conversation.session_3[4].speaker: field 'speaker' is empty",
    ),
    (
        "turn-not-object",
        "l.json",
        _locomo_with("hello"),  # type: ignore[arg-type]
        ':$[0].conversation.session_3[4]: expected a turn object, got string "hello"',
    ),
    (
        "session-not-list",
        "l.json",
        _locomo_with(session_2={"a": 1}),
        ":$[0].conversation.session_2: session 'session_2' must be a list of turns, got an object",
    ),
    (
        "bad-date",
        "l.json",
        _locomo_with(session_2_date_time="someday"),
        ":$[0].conversation.session_2_date_time: field 'session_2_date_time': cannot read "
        'string "someday" as a date/time (expected ISO-8601 like 2023-05-08T13:56:00Z or '
        "LoCoMo's '1:56 pm on 8 May, 2023')",
    ),
    (
        "duplicate-dia-id",
        "l.json",
        _locomo_with({"speaker": "Ann", "dia_id": "D3:1", "text": "x"}),
        ':$[0].conversation.session_3[4]: duplicate turn id "D3:1" in conversation "conv-1" '
        "(first at $[0].conversation.session_3[0])",
    ),
    (
        "duplicate-session",
        "l.json",
        _locomo_with(session_01=[]),
        ":$[0].conversation.session_01: session 1 appears twice ('session_1')",
    ),
    (
        "missing-sample-id",
        "l.json",
        [{"conversation": {"speaker_a": "a", "speaker_b": "b"}}],
        ":$[0]: field 'sample_id' is missing",
    ),
    (
        "missing-speaker-a",
        "l.json",
        [{"sample_id": "s", "conversation": {"speaker_b": "b"}}],
        ":$[0].conversation: field 'speaker_a' is missing",
    ),
    (
        "duplicate-sample",
        "l.json",
        [sample("s"), sample("s")],
        ':$[1]: duplicate conversation id "s" (first at $[0])',
    ),
    (
        "surrogate",
        "l.json",
        '[{"sample_id": "s", "conversation": {"speaker_a": "a", '
        '"speaker_b": "b", "session_1": [{"speaker": "a", "dia_id": "1", "text": "x\\ud800"}]}}]',
        ":$[0].conversation.session_1[0].text: field 'text' holds an unpaired surrogate U+D800 "
        "at character 1: not valid Unicode text",
    ),
    (
        "invalid-json",
        "l.json",
        '[{"sample_id": "s",\n  "conversation": {,}}]',
        ":line 2, column 20: invalid JSON: Expecting property name enclosed in double quotes",
    ),
    (
        "not-json",
        "l.json",
        "\n  hello",
        ":line 2, column 3: not JSON: expected '[' or '{' but found \"h\"",
    ),
    (
        "undetectable",
        "l.json",
        [{"foo": 1}],
        ":$[0]: cannot detect the format: expected a LoCoMo sample ('sample_id', 'conversation'), "
        "an OpenAI-style object ('messages') or JSONL (one object with 'conversation' per line); "
        "name it with --format",
    ),
    ("empty-list", "l.json", [], ": no conversations found (an empty list)"),
    ("empty-file", "l.json", "", ": no conversations found: the file is empty"),
    ("blank-file", "l.jsonl", " \n\n\t\n", ": no conversations found: the file is empty"),
    ("no-turns", "l.json", [sample(sessions={1: []})], ": no turns found in 1 conversation(s)"),
    (
        "jsonl-not-object",
        "c.jsonl",
        jsonl({"conversation": "c", "speaker": "a", "text": "t"}) + "[1, 2]\n",
        ":line 2: expected a JSON object (one turn per line), got an array of 2 item(s)",
    ),
    (
        "jsonl-bad-line",
        "c.jsonl",
        jsonl({"conversation": "c", "speaker": "a", "text": "t"}) * 2 + '{"conversation": }\n',
        ":line 3, column 18: invalid JSON: Expecting value (JSONL needs "
        "one complete JSON object per line)",
    ),
    (
        "jsonl-missing-speaker",
        "c.jsonl",
        "\n" * 16 + '{"conversation": "c", "text": "t"}\n',
        ":line 17: field 'speaker' ('role') is missing",
    ),
    (
        "jsonl-missing-text",
        "c.jsonl",
        '{"conversation": "c", "role": "a"}\n',
        ":line 1: field 'text' ('content') is missing",
    ),
    (
        "jsonl-missing-conversation",
        "c.jsonl",
        '{"speaker": "a", "text": "t"}\n',
        ":line 1: field 'conversation' is missing",
    ),
    (
        "jsonl-text-type",
        "c.jsonl",
        '{"conversation": "c", "speaker": "a", "text": ["t"]}\n',
        ":line 1: field 'text' must be a string, got an array of 1 item(s)",
    ),
    (
        "jsonl-conversation-type",
        "c.jsonl",
        '{"conversation": true, "speaker": "a", "text": "t"}\n',
        ":line 1: field 'conversation' must be a string or an integer, got boolean true",
    ),
    (
        "jsonl-timestamp",
        "c.jsonl",
        '{"conversation": "c", "speaker": "a", "text": "t", "timestamp": 1e300}\n',
        ":line 1: field 'timestamp': number 1e+300 is not a valid Unix time",
    ),
    (
        "jsonl-duplicate-id",
        "c.jsonl",
        jsonl(*[{"conversation": "c", "speaker": "a", "text": "t", "id": "x"}] * 2),
        ':line 2: duplicate turn id "x" in conversation "c" (first at line 1)',
    ),
    (
        "openai-messages-type",
        "o.json",
        {"messages": "hi"},
        ":$.messages: field 'messages' must be a list, got string \"hi\"",
    ),
    (
        "openai-part-text",
        "o.json",
        {"messages": [{"role": "u", "content": [{"type": "text"}]}]},
        ":$.messages[0].content[0]: field 'text' is missing",
    ),
    (
        "openai-null-content",
        "o.json",
        {"messages": [{"role": "u", "content": None}]},
        ":$.messages[0].content: field 'content' is null (and no 'tool_calls')",
    ),
    (
        "openai-role-missing",
        "o.json",
        {"messages": [{"content": "x"}]},
        ":$.messages[0]: field 'role' is missing",
    ),
    (
        "invalid-utf8",
        "l.json",
        b'[{"sample_id": "\xff"}]',
        ":byte 16: invalid UTF-8 on line 1 (byte 0xff)",
    ),
    (
        "binary",
        "l.json",
        b"\n\x89PNG\r\n\x1a\n\x00\x00",
        ":byte 9: binary content (NUL byte on line 4); expected UTF-8 text",
    ),
    ("utf16", "l.json", "[]".encode("utf-16"), ":byte 0: the file is UTF-16; save it as UTF-8"),
    ("deep", "l.json", "[" * 100_000 + "]" * 100_000, ": invalid JSON: nested too deeply"),
]


@pytest.mark.parametrize(
    ("name", "content", "expected"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_errors_name_file_and_place(tmp_path: Path, name: str, content: Any, expected: str) -> None:
    path = write(tmp_path, name, content)
    e = err(path)
    assert str(e) == f"{path}{expected}"
    assert isinstance(e, ValueError)
    assert e.path == path
    assert f"{e.path}:{e.location}: {e.message}" == str(e) or not e.location


def test_missing_file_directory_and_unknown_format(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    assert str(err(missing)) == f"{missing}: no such file"
    assert str(err(tmp_path)) == f"{tmp_path}: is a directory, not a file"
    with pytest.raises(ReaderError) as info:
        detect_format(missing)
    assert info.value.message == "no such file"
    path = write(tmp_path, "x.json", [sample()])
    e = err(path, "xml")
    assert str(e) == (f"{path}: unknown format 'xml'; expected one of: auto, locomo, jsonl, openai")
    assert e.location == ""


def test_reader_error_attributes_and_pickle(tmp_path: Path) -> None:
    e = ReaderError(tmp_path / "f.jsonl", "line 17", "field 'speaker' is missing")
    assert str(e) == f"{tmp_path / 'f.jsonl'}:line 17: field 'speaker' is missing"
    again = pickle.loads(pickle.dumps(e))
    assert (again.path, again.location, again.message, str(again)) == (
        e.path,
        e.location,
        e.message,
        str(e),
    )


def test_all_or_nothing(tmp_path: Path) -> None:
    """One bad turn at the very end of a long file: nothing is returned, the error names it."""
    records = [{"conversation": f"c{i % 3}", "speaker": "a", "text": f"t{i}"} for i in range(2000)]
    text = jsonl(*records) + '{"conversation": "c1", "speaker": "", "text": "late"}\n'
    path = write(tmp_path, "big.jsonl", text)
    result: Any = None
    with pytest.raises(ReaderError) as info:
        result = read_file(path)
    assert result is None
    assert info.value.location == "line 2001"


# --------------------------------------------------------------------------- properties

FIELD_NAMES = [
    "sample_id",
    "conversation",
    "speaker_a",
    "speaker_b",
    "session_1",
    "session_1_date_time",
    "session_10",
    "speaker",
    "dia_id",
    "text",
    "blip_caption",
    "messages",
    "role",
    "content",
    "name",
    "type",
    "timestamp",
    "id",
    "session",
    "tool_calls",
    "caption",
]
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(["1:56 pm on 8 May, 2023", "", " ", "2024-01-01T00:00:00Z", "text"])
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=25,
)
SUFFIXES = [".json", ".jsonl", ".txt"]


def _read_or_reader_error(path: Path, fmt: str = "auto") -> list[Conversation] | None:
    """The property: a valid result, or a ReaderError naming the file; nothing else."""
    try:
        convs, used = read_conversations(path, fmt)
    except ReaderError as e:
        assert str(e).startswith(str(path))
        assert e.message
        return None
    assert used in readers.FORMATS
    assert convs and any(c.turns for c in convs)
    for conv in convs:
        assert [t.index for t in conv.turns] == list(range(len(conv.turns)))
        assert all(t.speaker == t.speaker.strip() and t.speaker for t in conv.turns)
    return convs


@HYPO
@given(
    data=st.binary(max_size=300),
    suffix=st.sampled_from(SUFFIXES),
    fmt=st.sampled_from(["auto", *readers.FORMATS]),
)
def test_arbitrary_bytes(tmp_path: Path, data: bytes, suffix: str, fmt: str) -> None:
    _read_or_reader_error(write(tmp_path, "f" + suffix, data), fmt)


@HYPO
@given(
    value=json_values,
    suffix=st.sampled_from(SUFFIXES),
    fmt=st.sampled_from(["auto", *readers.FORMATS]),
    lines=st.booleans(),
)
def test_arbitrary_json(tmp_path: Path, value: Any, suffix: str, fmt: str, lines: bool) -> None:
    if lines and isinstance(value, list):
        text = "\n".join(json.dumps(v) for v in value)
    else:
        text = json.dumps(value)
    _read_or_reader_error(write(tmp_path, "f" + suffix, text), fmt)


def _valid_files() -> list[tuple[str, str]]:
    lo = json.dumps(_locomo_with(), indent=1)
    jl = jsonl(
        *[
            {
                "conversation": f"c{i % 2}",
                "speaker": "a",
                "text": f"t{i}",
                "timestamp": "2024-01-01T00:00:00Z",
                "session": i // 3,
            }
            for i in range(6)
        ]
    )
    oa = json.dumps(
        {
            "messages": [
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": [{"type": "text", "text": "y"}]},
            ]
        }
    )
    return [("l.json", lo), ("c.jsonl", jl), ("o.json", oa), ("o.jsonl", oa + "\n" + oa)]


@HYPO
@given(
    which=st.integers(0, 3),
    ops=st.lists(
        st.tuples(
            st.sampled_from(["delete", "insert", "flip", "truncate", "dup"]),
            st.floats(0, 1),
            st.binary(min_size=1, max_size=4),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_corrupted_valid_files(
    tmp_path: Path, which: int, ops: list[tuple[str, float, bytes]]
) -> None:
    name, text = _valid_files()[which]
    data = bytearray(text.encode())
    for op, where, junk in ops:
        i = int(where * (len(data) - 1))
        if op == "delete":
            del data[i : i + len(junk)]
        elif op == "insert":
            data[i:i] = junk
        elif op == "flip":
            data[i] = junk[0]
        elif op == "truncate":
            del data[i:]
        else:
            data[i:i] = data[max(0, i - 20) : i]
        if not data:
            break
    _read_or_reader_error(write(tmp_path, name, bytes(data)))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@HYPO
@given(data=st.data(), which=st.integers(0, 2), replacement=json_values)
def test_wrong_typed_fields(
    tmp_path: Path, data: st.DataObject, which: int, replacement: Any
) -> None:
    docs = [
        _locomo_with(),
        [
            {
                "conversation": "c",
                "speaker": "a",
                "text": "t",
                "session": 2,
                "id": "x",
                "timestamp": "2024-01-01T00:00:00Z",
            },
            {"conversation": "c", "role": "b", "content": "u"},
        ],
        {
            "id": "o",
            "messages": [
                {"role": "user", "name": "n", "content": "x", "timestamp": "2024-01-01T00:00:00Z"},
                {"role": "assistant", "content": [{"type": "text", "text": "y"}]},
            ],
        },
    ]
    doc = docs[which]
    path_to = data.draw(st.sampled_from(_paths(doc)))
    target = doc
    for step in path_to[:-1]:
        target = target[step]
    target[path_to[-1]] = replacement
    if which == 1:
        path = write(tmp_path, "c.jsonl", "\n".join(json.dumps(r) for r in doc))
    else:
        path = write(tmp_path, ("l.json", "", "o.json")[which], doc)
    _read_or_reader_error(path)


names = st.text(min_size=1, max_size=12).filter(lambda s: s.strip())
texts = st.one_of(
    st.text(max_size=200),
    st.sampled_from(
        [
            CYPHER,
            '\\u0000 "quoted" \\',
            "MATCH (n) DETACH DELETE n;",
            " ",
            "",
            "a\u2028b",
            "$param {x: 1}",
            "\r\n",
        ]
    ),
    st.tuples(st.text(max_size=30), st.just(CYPHER), st.text(max_size=30)).map("".join),
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    convs=st.lists(
        st.tuples(names, st.lists(st.tuples(names, texts), min_size=1, max_size=8)),
        min_size=1,
        max_size=3,
    ),
    fmt=st.sampled_from(readers.FORMATS),
    ascii_only=st.booleans(),
)
def test_round_trip_preserves_text(
    tmp_path: Path, convs: list[tuple[str, list[tuple[str, str]]]], fmt: str, ascii_only: bool
) -> None:
    ids = [f"conv-{i}-{cid}" for i, (cid, _) in enumerate(convs)]
    expected = {
        cid: [(s.strip(), t) for s, t in turns if t.strip()]
        for cid, (_, turns) in zip(ids, convs, strict=True)
    }
    assume(any(expected.values()))

    def dump(v: Any) -> str:
        return json.dumps(v, ensure_ascii=ascii_only)

    if fmt == "locomo":
        doc = []
        for cid, (_, turns) in zip(ids, convs, strict=True):
            conv: dict[str, Any] = {"speaker_a": turns[0][0], "speaker_b": "other"}
            for n, (speaker, text) in enumerate(turns, 1):  # one turn per session
                conv[f"session_{n}"] = [{"speaker": speaker, "dia_id": f"D{n}:1", "text": text}]
                conv[f"session_{n}_date_time"] = f"1:{n:02d} pm on 8 May, 2023"
            doc.append({"sample_id": cid, "conversation": conv})
        path = write(tmp_path, "rt.json", dump(doc))
    elif fmt == "jsonl":
        lines = [
            dump({"conversation": cid, "speaker": s, "text": t})
            for cid, (_, turns) in zip(ids, convs, strict=True)
            for s, t in turns
        ]
        path = write(tmp_path, "rt.jsonl", "\n".join(lines))
    else:
        doc = [
            {"id": cid, "messages": [{"role": "user", "name": s, "content": t} for s, t in turns]}
            for cid, (_, turns) in zip(ids, convs, strict=True)
        ]
        path = write(tmp_path, "rt.json", dump(doc))
    got, used = read_conversations(path)
    assert used == fmt
    assert {c.id: [(t.speaker, t.text) for t in c.turns] for c in got} == expected


def test_read_result_type(tmp_path: Path) -> None:
    result = read_file(write(tmp_path, "l.json", [sample()]))
    assert isinstance(result, ReadResult)
    assert result.turn_count == 2 and result.skipped == []
