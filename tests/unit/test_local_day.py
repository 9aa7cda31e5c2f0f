"""A turn's time keeps the offset it was given, and relative dates count from the speaker's
local day: across offsets (+14:00, -10:00) and midnight, "in two weeks" ahead."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from cogmem.extract.base import ExtractionContext
from cogmem.extract.heuristic import HeuristicExtractor
from cogmem.ingest import parsing, read_file
from cogmem.models import Turn
from cogmem.temporal import find_time_expressions, parse_session_date

pytestmark = pytest.mark.unit

KIRITIMATI = timezone(timedelta(hours=14))  # the earliest local day on Earth
HONOLULU = timezone(timedelta(hours=-10))
NEW_YORK = timezone(timedelta(hours=-5))


def one(text: str, said: datetime) -> tuple[datetime, datetime, str]:
    (mention,) = find_time_expressions(text, said)
    return mention.range.start, mention.range.end, mention.range.granularity


# --------------------------------------------------------------------------- reading times


def test_an_offset_is_kept_not_converted() -> None:
    said = parsing.parse_when("2024-03-02T00:30:00+14:00")
    assert said is not None and said.utcoffset() == timedelta(hours=14)
    assert said.date().isoformat() == "2024-03-02"  # the speaker's day, not UTC's 1 March
    assert said == datetime(2024, 3, 1, 10, 30, tzinfo=UTC)  # the same instant
    naive = parsing.parse_when("2024-03-02T00:30:00")
    assert naive is not None and naive.utcoffset() == timedelta(0)
    got = parse_session_date("2024-03-01T23:30:00-10:00")
    assert got is not None and got.utcoffset() == timedelta(hours=-10)


def test_realtalk_day_first_times_read() -> None:
    assert parse_session_date("29.12.2023, 22:42:04") == datetime(
        2023, 12, 29, 22, 42, 4, tzinfo=UTC
    )
    assert parse_session_date("31.02.2023, 22:42:04") is None


def test_a_locomo_layout_turn_is_said_at_its_own_timestamp(tmp_path: Path) -> None:
    conv = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "11:50 pm on 1 March, 2024",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "Up?", "timestamp": "2024-03-01T23:50"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Yes", "timestamp": "2024-03-02T00:10"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "Night!"},
            {
                "speaker": "Ben",
                "dia_id": "D1:4",
                "text": "Ok",
                "timestamp": "2024-03-02T00:12+14:00",
            },
        ],
    }
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"sample_id": "s", "conversation": conv, "qa": []}]))
    (read,) = read_file(path, "locomo").conversations
    ats = [t.at for t in read.turns]
    session = datetime(2024, 3, 1, 23, 50, tzinfo=UTC)
    assert ats[:3] == [session, datetime(2024, 3, 2, 0, 10, tzinfo=UTC), session]
    assert ats[1] is not None and ats[1].date().isoformat() == "2024-03-02"  # past midnight
    assert ats[3] is not None and ats[3].utcoffset() == timedelta(hours=14)
    assert {t.session_date_text for t in read.turns} == {"11:50 pm on 1 March, 2024"}


def test_a_bad_turn_timestamp_is_a_one_line_error(tmp_path: Path) -> None:
    conv = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "11:50 pm on 1 March, 2024",
        "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "Hi", "timestamp": "soon"}],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"sample_id": "s", "conversation": conv}]))
    with pytest.raises(parsing.ReaderError) as caught:
        read_file(path, "locomo")
    message = str(caught.value)
    assert "\n" not in message
    assert "$[0].conversation.session_1[0].timestamp" in message and "'timestamp'" in message


def test_a_jsonl_offset_is_kept(tmp_path: Path) -> None:
    line = {"conversation": "c", "speaker": "Ana", "text": "hi"}
    line["timestamp"] = "2024-03-02T00:30:00+14:00"
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps(line) + "\n")
    (turn,) = read_file(path).conversations[0].turns
    assert turn.at is not None and turn.at.utcoffset() == timedelta(hours=14)


# --------------------------------------------------------------------------- the local day


@pytest.mark.parametrize(
    ("said", "night_of"),
    [
        # 00:30 on 2 March in Kiritimati is 10:30 on 1 March UTC: last night is 1 March's
        (datetime(2024, 3, 2, 0, 30, tzinfo=KIRITIMATI), "2024-03-01"),
        # 23:30 on 1 March in Honolulu is 09:30 on 2 March UTC: last night is 29 February's
        (datetime(2024, 3, 1, 23, 30, tzinfo=HONOLULU), "2024-02-29"),
    ],
)
def test_last_night_is_the_speakers_night(said: datetime, night_of: str) -> None:
    start, end, granularity = one("We watched the meteor shower last night.", said)
    tz = said.tzinfo
    assert start.astimezone(tz).date().isoformat() == night_of
    assert start.astimezone(tz).hour == 18 and end - start == timedelta(hours=12)
    assert granularity == "day"


def test_yesterday_and_tomorrow_count_from_the_local_day() -> None:
    late = datetime(2024, 3, 1, 23, 59, tzinfo=NEW_YORK)  # 04:59 on 2 March UTC
    start, end, _ = one("I fly to Lima tomorrow.", late)
    assert start == datetime(2024, 3, 2, tzinfo=NEW_YORK) and end - start == timedelta(days=1)
    early = datetime(2024, 3, 2, 0, 30, tzinfo=KIRITIMATI)  # 10:30 on 1 March UTC
    start, _, _ = one("I finished the quilt yesterday.", early)
    assert start == datetime(2024, 3, 1, tzinfo=KIRITIMATI)


def test_naive_times_are_utc_days() -> None:
    start, _, _ = one("I finished the quilt yesterday.", datetime(2024, 3, 2, 0, 30))
    assert start == datetime(2024, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "I got the job, I start in two weeks.",
        "Got the offer and I move to Porto in two weeks.",
        "My sister's wedding is in two weeks.",
        "We are flying to Oslo in two weeks.",
    ],
)
def test_in_two_weeks_is_ahead(text: str) -> None:
    said = datetime(2024, 3, 6, 20, 0, tzinfo=KIRITIMATI)  # a Wednesday
    start, end, _ = one(text, said)
    assert start > said and end > start
    assert start.astimezone(KIRITIMATI).date().isoformat() == "2024-03-18"  # the week after next


@pytest.mark.parametrize(
    "text", ["I haven't seen her in two weeks.", "I hadn't run in two weeks, so it hurt."]
)
def test_in_two_weeks_is_behind_where_its_clause_looks_back(text: str) -> None:
    said = datetime(2024, 3, 6, 20, 0, tzinfo=KIRITIMATI)
    start, end, _ = one(text, said)
    assert end == said and start < said


def test_the_extractor_dates_a_record_on_the_local_day() -> None:
    """End to end through the heuristic extractor: a turn said at 00:30 in +14:00 about
    "last night" is dated the evening of the speaker's previous day."""
    said = datetime(2024, 3, 2, 0, 30, tzinfo=KIRITIMATI)
    turn = Turn(
        conversation="c",
        session="1",
        session_index=1,
        index=0,
        source_id="D1:1",
        speaker="Ana",
        text="I went to a salsa class with Marta last night.",
        at=said,
    )
    records = HeuristicExtractor().extract(turn, ExtractionContext(speakers=["Ana", "Ben"])).records
    dated = [r for r in records if r.time is not None]
    assert dated, records
    for record in dated:
        assert record.time is not None
        local = record.time.start.astimezone(KIRITIMATI)
        assert (local.date().isoformat(), local.hour) == ("2024-03-01", 18)
