"""The one place that talks to an OpenAI-compatible endpoint (via the ``openai`` client):
chat completions for the LLM, ``/embeddings`` for :class:`~cogmem.embed.OpenAIEmbedder`.

:class:`LLMClient` wraps the client with cogmem's own retry policy: exponential backoff
with jitter on timeouts, connection errors, 408/409/429 and 5xx, and on answers that are
not the JSON asked for; any other 4xx fails at once.

Structured output asks for ``response_format: json_schema`` first. Servers differ in what
they take (llama-cpp-python's server answers ``json_schema`` with HTTP 500 but constrains
``{"type": "json_object", "schema": …}``), so a client learns once: until a structured call
has succeeded, a refusal of a format (a 400, 415 or 422 at once; a 5xx the second time in
one call, since one 5xx may be a passing fault) steps down without backoff to
``json_object`` with the schema, then to plain ``json_object`` (the schema then goes into
the system message). The first format that succeeds is kept for every later call, where a
5xx is an ordinary retryable failure again. Every failed attempt is counted by
reason in :class:`LLMStats` and logged at WARNING. The API key never reaches a log line or
an exception message. An LLM is optional in cogmem: nothing here is called when
``settings.llm == "none"``; :mod:`cogmem.clients` decides that and builds the one client.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from cogmem.config import ConfigError, Settings

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 429})
REFUSAL_STATUS = frozenset({400, 415, 422})
"""With a 5xx: how a server refuses a response format it does not support."""
RESPONSE_FORMATS = ("json_schema", "json_object+schema", "json_object")
"""Structured-output formats, strongest first; a client steps down until one is accepted."""
_SCHEMA_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_SECRETISH = re.compile(
    r"(?:\b(?:sk|rk|pk|key)-[A-Za-z0-9_\-\*\.]{4,})|(?:\bBearer\s+\S+)", re.IGNORECASE
)
_MAX_DETAIL = 300


def openai_client(settings: Settings) -> Any:
    """An ``openai.OpenAI`` client for the configured base URL, key, timeout and retries."""
    from openai import OpenAI

    if not settings.llm_base_url and not settings.llm_api_key:
        raise ConfigError(
            "the openai backend needs COGMEM_LLM_BASE_URL (any OpenAI-compatible server: "
            "vLLM, Ollama, llama.cpp) or COGMEM_LLM_API_KEY for api.openai.com"
        )
    return OpenAI(
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key or "not-needed",
        timeout=settings.llm_timeout_s,
        max_retries=0,  # cogmem retries itself, with backoff and counts
    )


class LLMError(RuntimeError):
    """An LLM call failed for good (after the retries, or at once for a non-retryable 4xx).

    ``reason`` is the last failure's reason (``timeout``, ``connection``, ``http_<status>``,
    ``malformed_json``, ``invalid_schema``, ...); ``status`` the HTTP status if there was one.
    """

    def __init__(
        self, message: str, *, reason: str, status: int | None = None, attempts: int = 0
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.status = status
        self.attempts = attempts


class LLMStats(BaseModel):
    """Counters of one :class:`LLMClient` (all calls together)."""

    calls: int = 0  # complete_json / complete_text / embed calls
    attempts: int = 0  # HTTP requests made
    retries: int = 0  # attempts after the first, over all calls
    errors: int = 0  # calls that ended in LLMError
    failures: dict[str, int] = Field(default_factory=dict)  # failed attempts by reason
    seconds: float = 0.0  # wall time in calls, backoff included
    response_format: str = RESPONSE_FORMATS[0]  # what structured calls ask for now
    format_confirmed: bool = False  # a structured call has succeeded with it
    format_fallbacks: int = 0  # refusals that made the client step down a format


@dataclass(eq=False)
class _Failure(Exception):
    """One failed attempt (internal): why, whether another attempt may help."""

    reason: str
    detail: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None


def _schema_name(name: str) -> str:
    cleaned = _SCHEMA_NAME.sub("_", name).strip("_")[:64]
    return cleaned or "response"


def extract_json_object(text: str) -> Any:
    """The JSON in an LLM's answer: the whole answer if it is JSON, else the first object.

    Accepts bare JSON, a fenced ```json block, and leading or trailing prose around a
    single object (and drops a ``<think>…</think>`` preamble); the caller's schema then
    judges what was found. Raises ``ValueError`` when there is no JSON to be had.
    """
    body = _THINK.sub("", text).strip()
    if not body:
        raise ValueError("empty answer")
    candidates = [m.group(1).strip() for m in _FENCE.finditer(body)]
    candidates.append(body)
    decoder = json.JSONDecoder()
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            pass
        for m in re.finditer(r"\{", candidate):
            try:
                value, _ = decoder.raw_decode(candidate, m.start())
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    raise ValueError("no JSON object in the answer")


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


class LLMClient:
    """Chat completions (JSON or text) and embeddings with cogmem's retry policy."""

    def __init__(
        self,
        settings: Settings,
        *,
        backoff_base_s: float = 0.2,
        backoff_cap_s: float = 8.0,
        client: Any | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.settings = settings
        self.model = settings.llm_model
        self.max_retries = settings.llm_max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.stats = LLMStats()
        self._client = client if client is not None else openai_client(settings)
        self._sleep = sleep
        self._rng = rng
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LLMClient(model={self.model!r}, base_url={self.settings.llm_base_url!r})"

    # -- lifecycle ---------------------------------------------------------------------
    def close(self) -> None:
        close = getattr(self._client, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- public calls ------------------------------------------------------------------
    def complete_json(
        self,
        system: str,
        user: str,
        schema: type[M],
        *,
        name: str,
        temperature: float = 0.0,
    ) -> M:
        """A chat completion constrained to ``schema``, parsed and validated.

        A malformed or schema-invalid answer counts as a failed attempt and is retried.
        """
        json_schema = schema.model_json_schema()
        tried: list[str] = []  # the format each attempt asked for
        server_errors: dict[str, int] = {}  # 5xx answers per format, in this call

        def attempt() -> M:
            fmt = self.stats.response_format
            tried.append(fmt)
            content = self._chat(
                _system_for(system, json_schema, fmt),
                user,
                temperature,
                _response_format(fmt, json_schema, name),
            )
            try:
                data = extract_json_object(content)
            except ValueError as exc:
                raise _Failure("malformed_json", str(exc), retryable=True) from None
            try:
                value = schema.model_validate(data)
            except ValidationError as exc:
                raise _Failure("invalid_schema", _validation_summary(exc), retryable=True) from None
            self._confirm_format(fmt)
            return value

        def adapt(failure: _Failure) -> bool:
            return self._step_down(tried[-1], failure, server_errors)

        return self._run(f"complete_json[{_schema_name(name)}]", attempt, adapt)

    @property
    def response_format(self) -> str:
        """The structured-output format this client asks for now (see the module doc)."""
        return self.stats.response_format

    def complete_text(self, system: str, user: str, *, temperature: float = 0.0) -> str:
        """A plain chat completion (an answer); an empty answer counts as a failed attempt."""

        def attempt() -> str:
            content = self._chat(system, user, temperature, None)
            if not content.strip():
                raise _Failure("empty_response", "the answer was empty", retryable=True)
            return content

        return self._run("complete_text", attempt)

    def embed(self, texts: Sequence[str], model: str | None = None) -> list[list[float]]:
        """Vectors for ``texts`` from the ``/embeddings`` endpoint, in input order."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        if not texts:
            return []
        # OpenAI rejects empty strings; a single space embeds "nothing" just as well
        inputs = [t if t.strip() else " " for t in texts]
        model_name = model or self.settings.llm_embed_model

        def attempt() -> list[list[float]]:
            response = self._call(
                lambda: self._client.embeddings.create(
                    model=model_name, input=inputs, encoding_format="float"
                )
            )
            rows = sorted(getattr(response, "data", None) or [], key=lambda d: d.index)
            if len(rows) != len(inputs):
                raise _Failure(
                    "bad_response",
                    f"asked for {len(inputs)} vectors, got {len(rows)}",
                    retryable=True,
                )
            try:
                return [[float(x) for x in row.embedding] for row in rows]
            except (TypeError, ValueError):
                raise _Failure("bad_response", "vectors are not numbers", True) from None

        return self._run("embed", attempt)

    # -- internals ---------------------------------------------------------------------
    def _chat(
        self,
        system: str,
        user: str,
        temperature: float,
        response_format: dict[str, Any] | None,
    ) -> str:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "temperature": temperature,
        }
        if response_format is not None:
            kwargs["response_format"] = response_format
        if self.settings.llm_max_tokens is not None:  # a small local model may never stop
            kwargs["max_tokens"] = self.settings.llm_max_tokens
        response = self._call(lambda: self._client.chat.completions.create(**kwargs))
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise _Failure("bad_response", "the answer had no choices", retryable=True)
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if not isinstance(content, str):
            refusal = getattr(message, "refusal", None)
            detail = "the model refused" if refusal else "the answer had no content"
            reason = "malformed_json" if response_format is not None else "empty_response"
            raise _Failure(reason, detail, retryable=True)
        return content

    def _step_down(self, fmt: str, failure: _Failure, server_errors: dict[str, int]) -> bool:
        """After a structured attempt that asked for ``fmt`` failed: whether the next
        attempt asks for a weaker format (it then follows at once, not counted as a retry)."""
        status = failure.status
        if status is None:
            return False
        if status >= 500:
            server_errors[fmt] = server_errors.get(fmt, 0) + 1
            refused = server_errors[fmt] >= 2
        else:
            refused = status in REFUSAL_STATUS
        if not refused:
            return False
        with self._lock:
            stats = self.stats
            if stats.response_format != fmt:  # another call has already moved on
                return True
            current = RESPONSE_FORMATS.index(fmt)
            if stats.format_confirmed or current + 1 >= len(RESPONSE_FORMATS):
                return False
            stats.response_format = RESPONSE_FORMATS[current + 1]
            stats.format_fallbacks += 1
        logger.warning(
            "LLM server refused response_format %s (%s); trying %s",
            fmt,
            failure.reason,
            RESPONSE_FORMATS[current + 1],
        )
        return True

    def _confirm_format(self, fmt: str) -> None:
        with self._lock:
            if self.stats.format_confirmed or self.stats.response_format != fmt:
                return
            self.stats.format_confirmed = True
        if fmt != RESPONSE_FORMATS[0]:
            logger.warning("LLM server takes response_format %s; kept for this client", fmt)

    def _call(self, fn: Callable[[], T]) -> T:
        """One HTTP request; the client's exceptions become :class:`_Failure`."""
        import openai

        try:
            return fn()
        except openai.APITimeoutError:
            raise _Failure("timeout", "the request timed out", retryable=True) from None
        except openai.APIConnectionError as exc:
            raise _Failure("connection", self._redact(str(exc)), retryable=True) from None
        except openai.APIStatusError as exc:
            status = int(exc.status_code)
            retryable = status in RETRYABLE_STATUS or status >= 500
            raise _Failure(
                f"http_{status}",
                f"HTTP {status}: {self._redact(str(exc))}",
                retryable=retryable,
                status=status,
                retry_after=_retry_after(exc),
            ) from None
        except openai.OpenAIError as exc:  # an answer the client could not read
            detail = f"{type(exc).__name__}: {self._redact(str(exc))}"
            raise _Failure("bad_response", detail, retryable=True) from None

    def _run(
        self,
        op: str,
        attempt: Callable[[], T],
        adapt: Callable[[_Failure], bool] | None = None,
    ) -> T:
        """``attempt`` until it succeeds or the retries run out. ``adapt`` (structured
        calls) may change what the next attempt asks for after a failure; such an attempt
        follows at once and does not use up a retry."""
        started = time.monotonic()
        attempts = self.max_retries + 1
        with self._lock:
            self.stats.calls += 1
        last: _Failure | None = None
        adapted = False
        number = 0
        try:
            while number < attempts or adapted:
                if last is not None and not adapted:
                    self._sleep(self._backoff(number - 1, last.retry_after))
                    with self._lock:
                        self.stats.retries += 1
                if not adapted:
                    number += 1
                adapted = False
                with self._lock:
                    self.stats.attempts += 1
                try:
                    return attempt()
                except _Failure as failure:
                    last = failure
                    self._count_failure(op, failure, number, attempts)
                    adapted = adapt is not None and adapt(failure)
                    if not failure.retryable and not adapted:
                        break
            assert last is not None
            if last.retryable:
                message = f"LLM {op} failed after {attempts} attempt(s): {last.reason}: "
            else:
                message = f"LLM {op} failed ({last.reason}, not retried): "
            with self._lock:
                self.stats.errors += 1
            raise LLMError(
                self._redact(message + last.detail),
                reason=last.reason,
                status=last.status,
                attempts=number,
            )
        finally:
            with self._lock:
                self.stats.seconds += time.monotonic() - started

    def _count_failure(self, op: str, failure: _Failure, number: int, attempts: int) -> None:
        with self._lock:
            self.stats.failures[failure.reason] = self.stats.failures.get(failure.reason, 0) + 1
        logger.warning(
            "LLM %s attempt %d/%d failed: %s: %s%s",
            op,
            number,
            attempts,
            failure.reason,
            self._redact(failure.detail),
            "" if failure.retryable else " (not retried)",
        )

    def _backoff(self, retry: int, retry_after: float | None) -> float:
        """Seconds to wait before retry ``retry`` (0-based): capped exponential, jittered."""
        ceiling = min(self.backoff_cap_s, self.backoff_base_s * (2**retry))
        delay = ceiling / 2 + self._rng() * ceiling / 2
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.backoff_cap_s))
        return delay

    def _redact(self, text: str) -> str:
        key = self.settings.llm_api_key
        if key:
            text = text.replace(key, "***")
        text = _SECRETISH.sub("***", text)
        if len(text) > _MAX_DETAIL:
            text = text[:_MAX_DETAIL] + "…"
        return text


def _response_format(fmt: str, json_schema: dict[str, Any], name: str) -> dict[str, Any]:
    """The ``response_format`` of one of :data:`RESPONSE_FORMATS`."""
    if fmt == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": _schema_name(name), "schema": json_schema, "strict": False},
        }
    if fmt == "json_object+schema":  # llama-cpp-python turns the schema into a grammar
        return {"type": "json_object", "schema": json_schema}
    return {"type": "json_object"}


def _system_for(system: str, json_schema: dict[str, Any], fmt: str) -> str:
    """The system message; with plain ``json_object`` the schema has to be told in words."""
    if fmt != "json_object":
        return system
    compact = json.dumps(json_schema, separators=(",", ":"))
    return f"{system}\n\nAnswer with one JSON object that follows this JSON schema:\n{compact}"


def _validation_summary(exc: ValidationError) -> str:
    errors = exc.errors(include_input=False, include_url=False)
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in errors[:3]]
    more = f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""
    return "; ".join(parts) + more


def endpoint_client(settings: Settings) -> LLMClient:
    """A client for the OpenAI-compatible endpoint that ``settings`` name (chat and
    embeddings); the only constructor call of :class:`LLMClient` in cogmem (here, below
    both :mod:`cogmem.clients` and :mod:`cogmem.embed.factory`, which call it)."""
    return LLMClient(settings)
