"""Readers: a conversation file → ``list[Conversation]`` of ordered, verbatim ``Turn`` records.

Formats (``read_conversations(path, fmt)``; ``fmt="auto"`` sniffs, see :func:`detect_format`):

``locomo``
    The published ``locomo10.json`` layout: a list of samples or one sample object. A sample
    has ``sample_id`` and ``conversation`` (``speaker_a``, ``speaker_b``, ``session_N`` lists
    of turns with ``speaker``, ``dia_id``, ``text``, optional ``blip_caption``, and
    ``session_N_date_time``). Sessions are ordered by N as a number (10 after 9);
    ``Turn.session = str(N)``, ``session_index = N``, ``source_id = dia_id``,
    ``caption = blip_caption``, ``session_date_text`` = the raw date string. All turns of a
    session share the session's datetime exactly: no seconds are invented, order is ``index``.
    Other keys (``qa``, ``event_summary``, ``observation``, ``session_summary``, ``img_url``,
    ``query``, ...) are ignored. A session without a date string gets ``at=None``.
``jsonl``
    One JSON object per line: ``conversation`` (required), optional ``session`` (default
    "1"), ``speaker`` or ``role``, ``text`` or ``content``, optional ``timestamp``, ``id``,
    ``caption``. Blank lines are skipped. Turns are grouped by conversation in file order;
    ``session_index`` is the session's order of first appearance (1-based) in its
    conversation; ``source_id`` is ``id`` or ``f"{session}:{n}"`` with n the 1-based line
    number of the turn within its conversation.
``openai``
    ``{"messages": [{"role", "content", "name"?, "timestamp"?, "id"?}, ...], "id"?}``, a JSON
    list of such objects, or one such object per line (the fine-tuning JSONL shape).
    ``content`` may be a list of parts: the text parts (``text``, ``input_text``,
    ``output_text``) are joined with "\\n", other parts ignored; ``content`` may be null or
    absent only when the message has ``tool_calls``/``function_call``. Speaker = ``name`` if
    present, else ``role`` (system and tool messages are kept as turns). The conversation id
    is ``id`` or ``conversation``, else the file stem (``stem-K`` for the K-th of several).
    All turns are in session "1"; ``source_id`` is the message's ``id`` or ``"1:{n}"``.

Rules common to all formats:

* Reading is all-or-nothing: the whole file is validated before anything is returned, and
  any malformed input raises :class:`ReaderError` naming the file and the place
  (``line 17``, ``line 3, column 9``, ``$[0].conversation.session_3[4].text``, ``byte 1032``).
* Text is kept verbatim (no stripping, any Unicode; unpaired surrogates, which are not
  Unicode text and cannot be stored, are an error). Speaker names are stripped of
  surrounding whitespace and must not be empty. Ids may be strings or integers.
* **Empty text.** A turn whose text is empty or whitespace only is kept when it has a
  caption (its words are in the caption). Without a caption it carries nothing to remember:
  it is *skipped and counted* — listed in :attr:`ReadResult.skipped` and logged as a
  warning. ``index`` numbers only the kept turns (no gaps); ``source_id`` stays the
  source's own, so a gap there shows where a turn was skipped.
* Times are aware UTC datetimes (naive ones are taken as UTC); ``timestamp`` may be
  ISO-8601 or a Unix time in seconds. An unreadable date is an error, not a silent ``None``.
* Duplicate turn ids within a conversation, or duplicate conversation ids within a file,
  are errors (they would silently merge in the graph). A file with no conversations, or
  with no turns at all, is an error.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from cogmem.models import Conversation, Turn

log = logging.getLogger(__name__)

FORMATS: tuple[str, ...] = ("locomo", "jsonl", "openai")
_LINE_SUFFIXES = frozenset({".jsonl", ".ndjson"})
_JSON_WS = " \t\r\n"
_SESSION_KEY = re.compile(r"session_(\d+)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_LOCOMO_DATE = "%I:%M %p on %d %B, %Y"
_TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})
_UNSET: Any = object()


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


@dataclass
class ReadResult:
    conversations: list[Conversation]
    format: str
    skipped: list[SkippedTurn] = field(default_factory=list)

    @property
    def turn_count(self) -> int:
        return sum(len(c.turns) for c in self.conversations)


# --------------------------------------------------------------------------- public API


def read_conversations(path: Path | str, fmt: str = "auto") -> tuple[list[Conversation], str]:
    """Read every conversation in ``path``; return them and the format used."""
    result = read_file(path, fmt)
    return result.conversations, result.format


def detect_format(path: Path | str) -> str:
    """Return "locomo", "jsonl" or "openai" for ``path``, or raise :class:`ReaderError`."""
    path = Path(path)
    return _Reader(path).sniff(_load_text(path))[0]


def read_file(path: Path | str, fmt: str = "auto") -> ReadResult:
    """Like :func:`read_conversations`, with the skipped empty turns as well."""
    path = Path(path)
    wanted = fmt.strip().lower() if isinstance(fmt, str) else fmt
    if wanted not in ("auto", *FORMATS):
        raise ReaderError(
            path, "", f"unknown format {fmt!r}; expected one of: auto, {', '.join(FORMATS)}"
        )
    text = _load_text(path)
    reader = _Reader(path)
    doc: Any = _UNSET
    if wanted == "auto":
        wanted, doc = reader.sniff(text)
    if wanted == "locomo":
        convs = reader.read_locomo(reader.document(text) if doc is _UNSET else doc)
    elif wanted == "jsonl":
        convs = reader.read_jsonl(text)
    else:
        convs = reader.read_openai(text, doc)
    if not convs:
        raise ReaderError(path, "", "no conversations found")
    if not any(c.turns for c in convs):
        note = f"; {len(reader.skipped)} empty turn(s) skipped" if reader.skipped else ""
        raise ReaderError(path, "", f"no turns found in {len(convs)} conversation(s){note}")
    if reader.skipped:
        first = reader.skipped[0]
        log.warning(
            "%s: skipped %d turn(s) with empty text and no caption (first at %s)",
            path,
            len(reader.skipped),
            first.location,
        )
    for conv in convs:
        conv.source_format = wanted
    return ReadResult(convs, wanted, reader.skipped)


# --------------------------------------------------------------------------- dates


@functools.cache
def _temporal_parser() -> Callable[[str], datetime | None] | None:
    try:
        from cogmem.temporal import parse_session_date
    except Exception:  # not written yet, or broken: fall back to the strict parsers
        return None
    return parse_session_date


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _parse_when(text: str) -> datetime | None:
    """A LoCoMo date ("1:56 pm on 8 May, 2023") or ISO-8601 string → aware UTC, else None."""
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
            return _utc(got)
    for attempt in (lambda: datetime.strptime(s, _LOCOMO_DATE), lambda: datetime.fromisoformat(s)):
        try:
            return _utc(attempt())
        except (ValueError, OverflowError):
            continue
    return None


# --------------------------------------------------------------------------- loading


def _load_text(path: Path) -> str:
    if not path.exists():
        raise ReaderError(path, "", "no such file")
    if path.is_dir():
        raise ReaderError(path, "", "is a directory, not a file")
    if not path.is_file():
        raise ReaderError(path, "", "not a regular file")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ReaderError(path, "", f"cannot read: {e.strerror or e}") from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ReaderError(path, "byte 0", "the file is UTF-16; save it as UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise ReaderError(
            path, f"byte {nul}", f"binary content (NUL byte on line {line}); expected UTF-8 text"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ReaderError(
            path, f"byte {e.start}", f"invalid UTF-8 on line {line} (byte 0x{data[e.start]:02x})"
        ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip(_JSON_WS):
        raise ReaderError(path, "", "no conversations found: the file is empty")
    return text


# --------------------------------------------------------------------------- locations


@dataclass(frozen=True)
class _Loc:
    """A place in the input: a JSON path, within a JSONL line when ``line`` is set."""

    jpath: str = "$"
    line: int | None = None

    def key(self, name: str) -> _Loc:
        seg = f".{name}" if _IDENT.fullmatch(name) else f"[{json.dumps(name)}]"
        return _Loc(self.jpath + seg, self.line)

    def item(self, i: int) -> _Loc:
        return _Loc(f"{self.jpath}[{i}]", self.line)

    def field(self, name: str) -> _Loc:
        """Where a field's error points: the line itself for a flat JSONL record."""
        return self if self.line is not None and self.jpath == "$" else self.key(name)

    def __str__(self) -> str:
        if self.line is None:
            return self.jpath
        return f"line {self.line}" if self.jpath == "$" else f"line {self.line}, {self.jpath}"


def _describe(value: Any) -> str:
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
    pos = len(text) - len(text.lstrip(_JSON_WS))
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col, text[pos]


@dataclass
class _Acc:
    """A conversation being built."""

    id: str
    loc: _Loc
    speakers: list[str] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)
    sessions: dict[str, int] = field(default_factory=dict)
    n: int = 0


# --------------------------------------------------------------------------- reading


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.skipped: list[SkippedTurn] = []

    def fail(self, loc: _Loc | str, message: str) -> NoReturn:
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
            if not line.strip(_JSON_WS):
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
            if line.strip(_JSON_WS):
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
            return ("openai" if is_openai else "jsonl"), _UNSET
        doc = self.document(text)
        return self.classify(doc), doc

    def classify(self, doc: Any) -> str:
        loc = _Loc()
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

    def obj(self, value: Any, loc: _Loc, what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(loc, f"expected {what}, got {_describe(value)}")
        return value

    def require(self, obj: dict[str, Any], name: str, loc: _Loc) -> Any:
        if name not in obj:
            self.fail(loc, f"field '{name}' is missing")
        return obj[name]

    def pick(self, obj: dict[str, Any], names: tuple[str, ...], loc: _Loc) -> str:
        """The first of ``names`` present with a non-null value (else the first present)."""
        present = [n for n in names if n in obj]
        for n in present:
            if obj[n] is not None:
                return n
        if present:
            return present[0]
        alts = " or ".join(f"'{n}'" for n in names[1:])
        self.fail(loc, f"field '{names[0]}' ({alts}) is missing")

    def unicode(self, s: str, loc: _Loc, name: str) -> str:
        try:
            s.encode("utf-8")
        except UnicodeEncodeError as e:
            self.fail(
                loc.field(name),
                f"field '{name}' holds an unpaired surrogate U+{ord(s[e.start]):04X} at "
                f"character {e.start}: not valid Unicode text",
            )
        return s

    def string(self, obj: dict[str, Any], name: str, loc: _Loc) -> str:
        """A required string, verbatim."""
        value = self.require(obj, name, loc)
        if not isinstance(value, str):
            self.fail(loc.field(name), f"field '{name}' must be a string, got {_describe(value)}")
        return self.unicode(value, loc, name)

    def speaker(self, obj: dict[str, Any], name: str, loc: _Loc) -> str:
        value = self.string(obj, name, loc).strip()
        if not value:
            self.fail(loc.field(name), f"field '{name}' is empty")
        return value

    def ident(self, obj: dict[str, Any], name: str, loc: _Loc, *, required: bool) -> str | None:
        """An id: a non-blank string or an integer, as a string."""
        if not required and obj.get(name) is None:
            return None
        value = self.require(obj, name, loc)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            self.fail(
                loc.field(name),
                f"field '{name}' must be a string or an integer, got {_describe(value)}",
            )
        if not value.strip():
            self.fail(loc.field(name), f"field '{name}' is empty")
        return self.unicode(value, loc, name)

    def caption(self, obj: dict[str, Any], name: str, loc: _Loc) -> str | None:
        if obj.get(name) is None:
            return None
        value = self.string(obj, name, loc)
        return value if value.strip() else None

    def when(self, obj: dict[str, Any], name: str, loc: _Loc) -> tuple[datetime | None, str | None]:
        """An optional date/time field: (aware UTC datetime, raw string)."""
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
                self.fail(where, f"field '{name}': {_describe(value)} is not a valid Unix time")
        if not isinstance(value, str):
            self.fail(
                where,
                f"field '{name}' must be a date/time string or a Unix time, got {_describe(value)}",
            )
        self.unicode(value, loc, name)
        if not value.strip():
            return None, None
        at = _parse_when(value)
        if at is None:
            self.fail(
                where,
                f"field '{name}': cannot read {_describe(value)} as a date/time (expected "
                "ISO-8601 like 2023-05-08T13:56:00Z or LoCoMo's '1:56 pm on 8 May, 2023')",
            )
        return at, value

    # ---- turns

    def add_turn(
        self,
        acc: _Acc,
        loc: _Loc,
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

    def new_conversation(self, accs: dict[str, _Acc], cid: str, loc: _Loc) -> _Acc:
        if cid in accs:
            self.fail(
                loc,
                f"duplicate conversation id {json.dumps(cid)} (first at {accs[cid].loc})",
            )
        accs[cid] = _Acc(cid, loc)
        return accs[cid]

    @staticmethod
    def finish(accs: dict[str, _Acc]) -> list[Conversation]:
        return [Conversation(id=a.id, speakers=a.speakers, turns=a.turns) for a in accs.values()]

    # ---- formats

    def read_locomo(self, doc: Any) -> list[Conversation]:
        root = _Loc()
        if isinstance(doc, dict):
            samples = [(root, doc)]
        elif isinstance(doc, list):
            samples = [(root.item(i), s) for i, s in enumerate(doc)]
        else:
            self.fail(root, f"expected a LoCoMo sample or a list of them, got {_describe(doc)}")
        accs: dict[str, _Acc] = {}
        for loc, raw in samples:
            sample = self.obj(raw, loc, "a LoCoMo sample object")
            cid = self.ident(sample, "sample_id", loc, required=True)
            assert cid is not None
            cloc = loc.key("conversation")
            conv = self.obj(self.require(sample, "conversation", loc), cloc, "an object")
            acc = self.new_conversation(accs, cid, loc)
            for key in ("speaker_a", "speaker_b"):
                name = self.speaker(conv, key, cloc)
                if name not in acc.speakers:
                    acc.speakers.append(name)
            sessions: dict[int, str] = {}
            for key in conv:
                m = _SESSION_KEY.fullmatch(key)
                if m is None:
                    continue
                n = int(m.group(1))
                if n in sessions:
                    self.fail(cloc.key(key), f"session {n} appears twice ('{sessions[n]}')")
                sessions[n] = key
            for n in sorted(sessions):
                key = sessions[n]
                sloc = cloc.key(key)
                turns = conv[key]
                if not isinstance(turns, list):
                    self.fail(
                        sloc, f"session '{key}' must be a list of turns, got {_describe(turns)}"
                    )
                at, date_text = self.when(conv, f"{key}_date_time", cloc)
                for i, raw_turn in enumerate(turns):
                    tloc = sloc.item(i)
                    turn = self.obj(raw_turn, tloc, "a turn object")
                    speaker = self.speaker(turn, "speaker", tloc)
                    source_id = self.ident(turn, "dia_id", tloc, required=True)
                    assert source_id is not None
                    self.add_turn(
                        acc,
                        tloc,
                        session=str(n),
                        session_index=n,
                        source_id=source_id,
                        speaker=speaker,
                        text=self.string(turn, "text", tloc),
                        at=at,
                        date_text=date_text,
                        caption=self.caption(turn, "blip_caption", tloc),
                    )
        return self.finish(accs)

    def read_jsonl(self, text: str) -> list[Conversation]:
        accs: dict[str, _Acc] = {}
        for lineno, value in self.lines(text):
            loc = _Loc(line=lineno)
            rec = self.obj(value, loc, "a JSON object (one turn per line)")
            cid = self.ident(rec, "conversation", loc, required=True)
            assert cid is not None
            session = self.ident(rec, "session", loc, required=False) or "1"
            speaker = self.speaker(rec, self.pick(rec, ("speaker", "role"), loc), loc)
            body = self.string(rec, self.pick(rec, ("text", "content"), loc), loc)
            caption = self.caption(rec, "caption", loc)
            at, _ = self.when(rec, "timestamp", loc)
            own_id = self.ident(rec, "id", loc, required=False)
            acc = accs.get(cid) or self.new_conversation(accs, cid, loc)
            acc.n += 1
            session_index = acc.sessions.setdefault(session, len(acc.sessions) + 1)
            self.add_turn(
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
        return self.finish(accs)

    def read_openai(self, text: str, doc: Any = _UNSET) -> list[Conversation]:
        records: list[tuple[_Loc, Any]]
        if doc is _UNSET and self.line_oriented(text):
            records = [(_Loc(line=n), v) for n, v in self.lines(text)]
        else:
            doc = self.document(text) if doc is _UNSET else doc
            if isinstance(doc, list):
                records = [(_Loc().item(i), v) for i, v in enumerate(doc)]
            else:
                records = [(_Loc(), doc)]
        accs: dict[str, _Acc] = {}
        for k, (loc, raw) in enumerate(records, 1):
            rec = self.obj(raw, loc, "an object with 'messages'")
            messages = self.require(rec, "messages", loc)
            if not isinstance(messages, list):
                self.fail(
                    loc.field("messages"),
                    f"field 'messages' must be a list, got {_describe(messages)}",
                )
            cid = self.ident(rec, "id", loc, required=False) or self.ident(
                rec, "conversation", loc, required=False
            )
            cid = cid or (self.path.stem if len(records) == 1 else f"{self.path.stem}-{k}")
            acc = self.new_conversation(accs, cid, loc)
            for i, raw_msg in enumerate(messages):
                mloc = loc.key("messages").item(i)
                msg = self.obj(raw_msg, mloc, "a message object")
                has_name = msg.get("name") is not None
                speaker = self.speaker(msg, "name" if has_name else "role", mloc)
                body = self.content(msg, mloc)
                at, _ = self.when(msg, "timestamp", mloc)
                own_id = self.ident(msg, "id", mloc, required=False)
                self.add_turn(
                    acc,
                    mloc,
                    session="1",
                    session_index=1,
                    source_id=own_id or f"1:{i + 1}",
                    speaker=speaker,
                    text=body,
                    at=at,
                )
        return self.finish(accs)

    def content(self, msg: dict[str, Any], loc: _Loc) -> str:
        if msg.get("content") is None:
            if "tool_calls" in msg or "function_call" in msg:
                return ""
            if "content" not in msg:
                self.fail(loc, "field 'content' is missing")
            self.fail(loc.key("content"), "field 'content' is null (and no 'tool_calls')")
        value = msg["content"]
        if isinstance(value, str):
            return self.unicode(value, loc, "content")
        if not isinstance(value, list):
            self.fail(
                loc.key("content"),
                f"field 'content' must be a string or a list of parts, got {_describe(value)}",
            )
        texts: list[str] = []
        for j, raw_part in enumerate(value):
            ploc = loc.key("content").item(j)
            part = self.obj(raw_part, ploc, "a content part object")
            kind = self.string(part, "type", ploc)
            if kind in _TEXT_PART_TYPES:
                texts.append(self.string(part, "text", ploc))
        return "\n".join(texts)
