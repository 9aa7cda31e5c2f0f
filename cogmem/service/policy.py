"""One request policy for both services: the inputs, their limits and the refusals' words.

The HTTP API takes these models as request bodies; the MCP tools take the same annotated
fields as their arguments (so their input schemas carry the same bounds), and both turn
a refusal into the one line :func:`reason` writes. A client error never logs a
traceback; a server bug logs one under a request id the client gets too (:func:`bug`).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from cogmem.temporal.client_time import check_time, turn_time

log = logging.getLogger("cogmem.service")

MAX_NAME = 200
MAX_TEXT = 100_000
MAX_QUERY = 20_000
MAX_K = 100
MAX_BUDGET = 100_000
MAX_TURN_ID = 200
MAX_FORGET_TURNS = 1000


def _not_blank(what: str) -> AfterValidator:
    def check(value: str) -> str:
        if not value.strip():
            raise ValueError(f"the {what} is blank")
        return value

    return AfterValidator(check)


def _stripped(what: str) -> AfterValidator:
    def check(value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError(f"the {what} is blank")
        return value

    return AfterValidator(check)


Speaker = Annotated[
    str, Field(min_length=1, max_length=MAX_NAME, description="who said it"), _stripped("speaker")
]
Text = Annotated[
    str,
    Field(min_length=1, max_length=MAX_TEXT, description="what was said, verbatim"),
    _not_blank("text"),
]
Conversation = Annotated[
    str,
    Field(min_length=1, max_length=MAX_NAME, description="the conversation (default 'live')"),
    _stripped("conversation"),
]


def _checked_time(value: datetime | None) -> datetime | None:
    return None if value is None else check_time(value)


When = Annotated[
    datetime | None,
    Field(
        description="when it was said: ISO-8601 text (a number is refused: seconds or "
        "milliseconds would be a guess), 0001-01-02 to 9999-12-30 UTC; default: now, UTC"
    ),
    BeforeValidator(turn_time),
    AfterValidator(_checked_time),
]
Wait = Annotated[
    bool,
    Field(
        description="false: answer once the turn is stored (202); its records are "
        "extracted behind, in order, and this group's searches wait for them"
    ),
]
TurnId = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=MAX_TURN_ID,
        pattern=r"^[\x21-\x7e]+$",
        description="the client's own id for the turn (printable ASCII, no spaces): a "
        "turn sent again with the same id changes nothing and gets the first answer",
    ),
]
Query = Annotated[str, Field(max_length=MAX_QUERY, description="a question or keywords")]
# strict: an integer, never a boolean (``k: true``), a float or a numeric string
K = Annotated[int, Field(ge=1, le=MAX_K, strict=True, description="how many results")]
Budget = Annotated[
    int,
    Field(ge=1, le=MAX_BUDGET, strict=True, description="the block's size in tokens, at most"),
]
GroupName = Annotated[str, Field(min_length=1, max_length=MAX_NAME)]


def _time_point(value: str | None) -> str | None:
    from cogmem.temporal.as_of import parse_as_of

    parse_as_of(value)  # an AsOfError (a ValueError; out of range too) is the reason
    return value


AsOf = Annotated[
    str | None,
    Field(
        max_length=64,
        description="answer from memory as it stood then: only turns said at or before "
        "this time count, and each record has the status it had then (a view superseded "
        "later is still current). An ISO date or time ('2024-03-01', "
        "'2024-03-01T14:00:00Z') or a plain date ('1 March 2024'); a date means the end "
        "of that day, UTC. Omitted or null: now",
    ),
    AfterValidator(_time_point),
]


class TurnIn(BaseModel):
    speaker: Speaker
    text: Text
    time: When = None
    conversation: Conversation = "live"
    wait: Wait = True
    id: TurnId = None


class SearchIn(BaseModel):
    query: Query
    k: K = 10
    as_of: AsOf = None


class ContextIn(BaseModel):
    query: Query
    budget_tokens: Budget = 2000
    as_of: AsOf = None


class AskIn(BaseModel):
    question: Query
    k: K = 10
    as_of: AsOf = None


def _span_end(value: str, end: bool) -> datetime:
    """A span's end as :func:`cogmem.forget.span_bound` reads it (a date: its whole day),
    inside the times cogmem keeps (:func:`~cogmem.temporal.client_time.check_time`)."""
    from cogmem.forget import ForgetError, span_bound

    try:
        bound = span_bound(value, end=end)
    except ForgetError:
        raise ValueError(
            "not an ISO date or time (2024-03-01 or 2024-03-01T18:30:00+01:00)"
        ) from None
    except ValueError as exc:  # AsOfError: a time out of range, an unknown zone
        raise ValueError(one_line(str(exc))) from None
    except OverflowError:
        bound = None
    if bound is None:
        raise ValueError("outside the times cogmem keeps")
    return check_time(bound)


def _span_start(value: str) -> str:
    _span_end(value, end=False)
    return value.strip()


def _span_stop(value: str) -> str:
    _span_end(value, end=True)
    return value.strip()


SpanText = Field(
    max_length=64,
    description="ISO date or time; a date is its whole day (both ends included)",
)
SpanFrom = Annotated[str, SpanText, BeforeValidator(turn_time), AfterValidator(_span_start)]
SpanTo = Annotated[str, SpanText, BeforeValidator(turn_time), AfterValidator(_span_stop)]
ForgetTurnId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_TURN_ID,
        pattern=r"^[\x21-\x7e]+$",
        description="a turn's id: its source id (with `conversation`) or its node id",
    ),
]
DryRun = Annotated[
    bool, Field(description="true: only say what would go; nothing is changed or audited")
]


class ForgetIn(BaseModel):
    """What to forget, in one of three forms: ``turns`` (ids; with ``conversation``, source
    ids of that conversation), a whole ``conversation`` (alone), or a span ``from`` … ``to``
    (ISO dates or times, both included; a date is its whole day), by ``speaker`` if given."""

    model_config = ConfigDict(populate_by_name=True)

    turns: list[ForgetTurnId] | None = Field(
        default=None, min_length=1, max_length=MAX_FORGET_TURNS
    )
    conversation: Conversation | None = None
    from_: SpanFrom | None = Field(default=None, alias="from")
    to: SpanTo | None = None
    speaker: Speaker | None = None
    dry_run: DryRun = False

    @field_validator("to")
    @classmethod
    def _ends_after_start(cls, value: str | None, info: ValidationInfo) -> str | None:
        start = info.data.get("from_")
        if (
            value is not None
            and start is not None
            and _span_end(value, end=True) < _span_end(start, end=False)
        ):
            raise ValueError("the span ends before it starts")
        return value

    @model_validator(mode="after")
    def _one_form(self) -> ForgetIn:
        span = self.from_ is not None or self.to is not None
        if self.turns is not None:
            if span or self.speaker is not None:
                raise ValueError("give turns, or a span (from, to), not both")
        elif span:
            if self.from_ is None or self.to is None:
                raise ValueError("a span needs both from and to")
            if self.conversation is not None:
                raise ValueError("a span covers the whole group: leave out conversation")
        elif self.conversation is None:
            raise ValueError("name what to forget: turns, a conversation, or from and to")
        elif self.speaker is not None:
            raise ValueError("speaker narrows a span only: give from and to")
        return self

    @property
    def kind(self) -> str:
        if self.turns is not None:
            return "turns"
        return "span" if self.from_ is not None else "conversation"


def reason(exc: ValidationError | Sequence[Any]) -> str:
    """A validation error in one line: ``field: what is wrong; …`` (never the values)."""
    errors = list(exc.errors() if isinstance(exc, ValidationError) else exc)
    parts = []
    for e in errors[:5]:
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "input"
        msg = str(e.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}")
    more = len(errors) - len(parts)
    return one_line("; ".join(parts) + (f" (and {more} more)" if more > 0 else ""))


def one_line(text: str, limit: int = 500) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def new_request_id() -> str:
    return uuid.uuid4().hex[:12]


def bug(where: str, exc: BaseException) -> tuple[str, str]:
    """Log a server bug with its traceback under a fresh request id; the id and the
    client's message (which names the id, never the error's own text)."""
    rid = new_request_id()
    log.error("internal error in %s (request id %s)", where, rid, exc_info=exc)
    return rid, f"internal error (request id {rid}); the server log has the details"
