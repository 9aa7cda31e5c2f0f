"""What every reader shares: the error type, dates, places in the input, field checks and
turn building. The formats themselves are in :mod:`cogmem.ingest.locomo`,
:mod:`cogmem.ingest.jsonl` and :mod:`cogmem.ingest.openai_chat`."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from cogmem.models import Conversation, Turn

_LINE_SUFFIXES = frozenset({".jsonl", ".ndjson"})
JSON_WS = " \t\r\n"

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_LOCOMO_DATE = "%I:%M %p on %d %B, %Y"

UNSET: Any = object()  # "not parsed yet" (None is a JSON document)


class ReaderError(ValueError):
    """A file could not be read; ``str()`` reads ``path:location: message``."""

    def __init__(self, path: Path | str, location: str, message: str) -> None:
        self.path = Path(path)
        self.location = location
        self.message = message
        where = f"{path}:{location}" if location else f"{path}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.location, self.message))


@dataclass(frozen=True)
class SkippedTurn:
    """A turn left out because it had neither text nor caption."""

    location: str
    conversation: str
    source_id: str
    reason: str = "empty text and no caption"


# --------------------------------------------------------------------------- dates


@functools.cache
def _temporal_parser() -> Callable[[str], datetime | None] | None:
    try:
        from cogmem.temporal import parse_session_date
    except Exception:  # not written yet, or broken: fall back to the strict parsers
        return None
    return parse_session_date


def _zoned(value: datetime) -> datetime:
    """Naive means UTC; an aware time keeps its own offset: the speaker's local day (what
    "yesterday" and "last night" count from) is the offset's, and the instant is the same."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None or value.utcoffset() is None else value


def parse_when(text: str) -> datetime | None:
    """A LoCoMo date ("1:56 pm on 8 May, 2023") or ISO-8601 string → an aware datetime, else
    None: UTC when the text names no offset, else at the offset it names."""
    s = text.strip()
    if not s:
        return None
    parser = _temporal_parser()
    if parser is not None:
        try:
            got = parser(s)
        except Exception:
            got = None
        if isinstance(got, datetime):
            return _zoned(got)
    for attempt in (lambda: datetime.strptime(s, _LOCOMO_DATE), lambda: datetime.fromisoformat(s)):
        try:
            return _zoned(attempt())
        except (ValueError, OverflowError):
            continue
    return None


# --------------------------------------------------------------------------- locations


@dataclass(frozen=True)
class Loc:
    """A place in the input: a JSON path, within a JSONL line when ``line`` is set."""

    jpath: str = "$"
    line: int | None = None

    def key(self, name: str) -> Loc:
        seg = f".{name}" if _IDENT.fullmatch(name) else f"[{json.dumps(name)}]"
        return Loc(self.jpath + seg, self.line)

    def item(self, i: int) -> Loc:
        return Loc(f"{self.jpath}[{i}]", self.line)

    def field(self, name: str) -> Loc:
        """Where a field's error points: the line itself for a flat JSONL record."""
        return self if self.line is not None and self.jpath == "$" else self.key(name)

    def __str__(self) -> str:
        if self.line is None:
            return self.jpath
        return f"line {self.line}" if self.jpath == "$" else f"line {self.line}, {self.jpath}"


def describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        r = repr(value)
        return f"number {r if len(r) <= 20 else r[:20] + '…'}"
    if isinstance(value, str):
        return f"string {json.dumps(value[:40] + ('…' if len(value) > 40 else ''))}"
    if isinstance(value, list):
        return f"an array of {len(value)} item(s)"
    return "an object"


def _first_content(text: str) -> tuple[int, int, str]:
    """Line, column and character of the first non-whitespace character."""
    pos = len(text) - len(text.lstrip(JSON_WS))
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col, text[pos]


@dataclass
class Acc:
    """A conversation being built."""

    id: str
    loc: Loc
    speakers: list[str] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)
    sessions: dict[str, int] = field(default_factory=dict)
    n: int = 0


# --------------------------------------------------------------------------- reading


class Reader:
    """One file being read: its path, the turns skipped so far, and the checks that turn JSON
    values into fields; every failure is a :class:`ReaderError` naming the place."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.skipped: list[SkippedTurn] = []

    def fail(self, loc: Loc | str, message: str) -> NoReturn:
        raise ReaderError(self.path, str(loc), message)

    # ---- parsing

    def document(self, text: str) -> Any:
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            self.fail(f"line {e.lineno}, column {e.colno}", f"invalid JSON: {e.msg}")
        except RecursionError:
            self.fail("", "invalid JSON: nested too deeply")
        except ValueError as e:  # e.g. an integer with too many digits
            self.fail("", f"invalid JSON: {e}")

    def lines(self, text: str) -> list[tuple[int, Any]]:
        out: list[tuple[int, Any]] = []
        for n, line in enumerate(text.split("\n"), 1):  # not splitlines(): U+2028 is text
            if not line.strip(JSON_WS):
                continue
            try:
                out.append((n, json.loads(line)))
            except json.JSONDecodeError as e:
                self.fail(
                    f"line {n}, column {e.colno}",
                    f"invalid JSON: {e.msg} (JSONL needs one complete JSON object per line)",
                )
            except RecursionError:
                self.fail(f"line {n}", "invalid JSON: nested too deeply")
            except ValueError as e:
                self.fail(f"line {n}", f"invalid JSON: {e}")
        return out

    def line_oriented(self, text: str) -> bool:
        """A ``.jsonl`` file, or one whose first line is a whole object with more lines after."""
        if self.path.suffix.lower() in _LINE_SUFFIXES:
            return True
        found: list[str] = []
        for line in text.split("\n"):
            if line.strip(JSON_WS):
                found.append(line)
                if len(found) == 2:
                    break
        if len(found) < 2:
            return False
        try:
            return isinstance(json.loads(found[0]), dict)
        except (ValueError, RecursionError):
            return False

    def sniff(self, text: str) -> tuple[str, Any]:
        """The format, and the parsed document when sniffing had to parse it."""
        line, col, char = _first_content(text)
        if char not in "[{":
            self.fail(
                f"line {line}, column {col}",
                f"not JSON: expected '[' or '{{' but found {json.dumps(char)}",
            )
        if self.line_oriented(text):
            try:
                first = json.loads(text.split("\n", line)[line - 1])
            except (ValueError, RecursionError):  # the JSONL reader reports it, by line
                first = None
            is_openai = isinstance(first, dict) and "messages" in first
            return ("openai" if is_openai else "jsonl"), UNSET
        doc = self.document(text)
        return self.classify(doc), doc

    def classify(self, doc: Any) -> str:
        loc = Loc()
        obj = doc
        if isinstance(doc, list):
            if not doc:
                self.fail("", "no conversations found (an empty list)")
            obj, loc = doc[0], loc.item(0)
        if isinstance(obj, dict):
            if "messages" in obj:
                return "openai"
            if "sample_id" in obj or isinstance(obj.get("conversation"), dict):
                return "locomo"
            if "conversation" in obj and doc is obj:
                return "jsonl"  # a one-line JSONL file
        self.fail(
            loc,
            "cannot detect the format: expected a LoCoMo sample ('sample_id', 'conversation'), "
            "an OpenAI-style object ('messages') or JSONL (one object with 'conversation' per "
            "line); name it with --format",
        )

    # ---- fields

    def obj(self, value: Any, loc: Loc, what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(loc, f"expected {what}, got {describe(value)}")
        return value

    def require(self, obj: dict[str, Any], name: str, loc: Loc) -> Any:
        if name not in obj:
            self.fail(loc, f"field '{name}' is missing")
        return obj[name]

    def pick(self, obj: dict[str, Any], names: tuple[str, ...], loc: Loc) -> str:
        """The first of ``names`` present with a non-null value (else the first present)."""
        present = [n for n in names if n in obj]
        for n in present:
            if obj[n] is not None:
                return n
        if present:
            return present[0]
        alts = " or ".join(f"'{n}'" for n in names[1:])
        self.fail(loc, f"field '{names[0]}' ({alts}) is missing")

    def unicode(self, s: str, loc: Loc, name: str) -> str:
        try:
            s.encode("utf-8")
        except UnicodeEncodeError as e:
            self.fail(
                loc.field(name),
                f"field '{name}' holds an unpaired surrogate U+{ord(s[e.start]):04X} at "
                f"character {e.start}: not valid Unicode text",
            )
        return s

    def string(self, obj: dict[str, Any], name: str, loc: Loc) -> str:
        """A required string, verbatim."""
        value = self.require(obj, name, loc)
        if not isinstance(value, str):
            self.fail(loc.field(name), f"field '{name}' must be a string, got {describe(value)}")
        return self.unicode(value, loc, name)

    def speaker(self, obj: dict[str, Any], name: str, loc: Loc) -> str:
        value = self.string(obj, name, loc).strip()
        if not value:
            self.fail(loc.field(name), f"field '{name}' is empty")
        return value

    def ident(self, obj: dict[str, Any], name: str, loc: Loc, *, required: bool) -> str | None:
        """An id: a non-blank string or an integer, as a string."""
        if not required and obj.get(name) is None:
            return None
        value = self.require(obj, name, loc)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            self.fail(
                loc.field(name),
                f"field '{name}' must be a string or an integer, got {describe(value)}",
            )
        if not value.strip():
            self.fail(loc.field(name), f"field '{name}' is empty")
        return self.unicode(value, loc, name)

    def caption(self, obj: dict[str, Any], name: str, loc: Loc) -> str | None:
        if obj.get(name) is None:
            return None
        value = self.string(obj, name, loc)
        return value if value.strip() else None

    def when(self, obj: dict[str, Any], name: str, loc: Loc) -> tuple[datetime | None, str | None]:
        """An optional date/time field: (aware datetime, raw string); a naive time is UTC, a
        time with an offset keeps it, a Unix time is UTC."""
        value = obj.get(name)
        if value is None:
            return None, None
        where = loc.field(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            try:
                if not math.isfinite(value):
                    raise ValueError(value)
                return datetime.fromtimestamp(value, UTC), None
            except (ValueError, OverflowError, OSError):
                self.fail(where, f"field '{name}': {describe(value)} is not a valid Unix time")
        if not isinstance(value, str):
            self.fail(
                where,
                f"field '{name}' must be a date/time string or a Unix time, got {describe(value)}",
            )
        self.unicode(value, loc, name)
        if not value.strip():
            return None, None
        at = parse_when(value)
        if at is None:
            self.fail(
                where,
                f"field '{name}': cannot read {describe(value)} as a date/time (expected "
                "ISO-8601 like 2023-05-08T13:56:00Z or LoCoMo's '1:56 pm on 8 May, 2023')",
            )
        return at, value

    # ---- turns

    def add_turn(
        self,
        acc: Acc,
        loc: Loc,
        *,
        session: str,
        session_index: int,
        source_id: str,
        speaker: str,
        text: str,
        at: datetime | None,
        date_text: str | None = None,
        caption: str | None = None,
    ) -> None:
        if source_id in acc.ids:
            self.fail(
                loc,
                f"duplicate turn id {json.dumps(source_id)} in conversation "
                f"{json.dumps(acc.id)} (first at {acc.ids[source_id]})",
            )
        acc.ids[source_id] = str(loc)
        if not text.strip() and not caption:
            self.skipped.append(SkippedTurn(str(loc), acc.id, source_id))
            return
        try:
            turn = Turn(
                conversation=acc.id,
                session=session,
                session_index=session_index,
                index=len(acc.turns),
                source_id=source_id,
                speaker=speaker,
                text=text,
                at=at,
                session_date_text=date_text,
                caption=caption,
            )
        except ValidationError as e:  # pragma: no cover - the checks above come first
            self.fail(loc, f"invalid turn: {e.errors()[0]['msg']}")
        acc.turns.append(turn)
        if speaker not in acc.speakers:
            acc.speakers.append(speaker)

    def new_conversation(self, accs: dict[str, Acc], cid: str, loc: Loc) -> Acc:
        if cid in accs:
            self.fail(
                loc,
                f"duplicate conversation id {json.dumps(cid)} (first at {accs[cid].loc})",
            )
        accs[cid] = Acc(cid, loc)
        return accs[cid]

    @staticmethod
    def finish(accs: dict[str, Acc]) -> list[Conversation]:
        return [Conversation(id=a.id, speakers=a.speakers, turns=a.turns) for a in accs.values()]
