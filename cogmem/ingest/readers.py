"""Readers: a conversation file → ``list[Conversation]`` of ordered, verbatim ``Turn`` records.

Formats (``read_conversations(path, fmt)``; ``fmt="auto"`` sniffs, see :func:`detect_format`):

``locomo``
    The published ``locomo10.json`` layout: a list of samples or one sample object. A sample
    has ``sample_id`` and ``conversation`` (``speaker_a``, ``speaker_b``, ``session_N`` lists
    of turns with ``speaker``, ``dia_id``, ``text``, optional ``blip_caption``, and
    ``session_N_date_time``). Sessions are ordered by N as a number (10 after 9);
    ``Turn.session = str(N)``, ``session_index = N``, ``source_id = dia_id``,
    ``caption = blip_caption``, ``session_date_text`` = the raw date string. A turn with its
    own ``timestamp`` (REALTALK in this layout) is said then; the others share the session's
    datetime exactly: no seconds are invented, order is ``index``.
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
* Times are aware datetimes: a naive one is taken as UTC, one given with a UTC offset
  keeps it (the speaker's local day is what "yesterday" counts from); ``timestamp`` may be
  ISO-8601 or a Unix time in seconds. An unreadable date is an error, not a silent ``None``.
* Duplicate turn ids within a conversation, or duplicate conversation ids within a file,
  are errors (they would silently merge in the graph). A file with no conversations, or
  with no turns at all, is an error.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogmem.ingest.jsonl import read_jsonl
from cogmem.ingest.locomo import read_locomo
from cogmem.ingest.openai_chat import read_openai
from cogmem.ingest.parsing import JSON_WS, UNSET, Reader, ReaderError, SkippedTurn
from cogmem.models import Conversation

log = logging.getLogger(__name__)

FORMATS: tuple[str, ...] = ("locomo", "jsonl", "openai")


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
    return Reader(path).sniff(_load_text(path))[0]


def read_file(path: Path | str, fmt: str = "auto") -> ReadResult:
    """Like :func:`read_conversations`, with the skipped empty turns as well."""
    path = Path(path)
    wanted = fmt.strip().lower() if isinstance(fmt, str) else fmt
    if wanted not in ("auto", *FORMATS):
        raise ReaderError(
            path, "", f"unknown format {fmt!r}; expected one of: auto, {', '.join(FORMATS)}"
        )
    text = _load_text(path)
    reader = Reader(path)
    doc: Any = UNSET
    if wanted == "auto":
        wanted, doc = reader.sniff(text)
    if wanted == "locomo":
        convs = read_locomo(reader, reader.document(text) if doc is UNSET else doc)
    elif wanted == "jsonl":
        convs = read_jsonl(reader, text)
    else:
        convs = read_openai(reader, text, doc)
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
    if not text.strip(JSON_WS):
        raise ReaderError(path, "", "no conversations found: the file is empty")
    return text


__all__ = [
    "FORMATS",
    "ReadResult",
    "ReaderError",
    "SkippedTurn",
    "detect_format",
    "read_conversations",
    "read_file",
]
