"""LLMClient against the scripted OpenAI-compatible server, through the real ``openai`` client."""

from __future__ import annotations

import json
import logging
import math
import socket
import time
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from cogmem.config import Settings
from cogmem.llm import RESPONSE_FORMATS, LLMClient, LLMError, LLMStats, extract_json_object
from tests.llm_server import ScriptedLLMServer, fake_embedding, format_of, settings_for

pytestmark = pytest.mark.unit

GOOD = '{"answer": 42, "reason": "because"}'


class Answer(BaseModel):
    answer: int
    reason: str


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


def make_client(server: ScriptedLLMServer, **overrides: object) -> LLMClient:
    values: dict[str, object] = {"llm_timeout_s": 1.0, "llm_max_retries": 2}
    values.update(overrides)
    return LLMClient(settings_for(server, **values), backoff_base_s=0.001, backoff_cap_s=0.01)


def ask(client: LLMClient) -> Answer:
    return client.complete_json("You answer in JSON.", "What is it?", Answer, name="answer")


def settled(client: LLMClient, server: ScriptedLLMServer) -> LLMClient:
    """The client after one good structured call (its format is learnt), counters and the
    server's record cleared: what follows is an ordinary call on a settled client."""
    server.reply(GOOD)
    ask(client)
    assert client.stats.format_confirmed
    client.stats = LLMStats(response_format=client.response_format, format_confirmed=True)
    server.clear()
    return client


# -- success -------------------------------------------------------------------------------


def test_json_answer_is_validated(llm_server: ScriptedLLMServer) -> None:
    llm_server.reply(GOOD)
    client = make_client(llm_server)
    assert ask(client) == Answer(answer=42, reason="because")
    assert client.stats.calls == 1
    assert client.stats.attempts == 1
    assert client.stats.retries == 0
    assert client.stats.failures == {}
    assert client.stats.seconds > 0


@pytest.mark.parametrize(
    "content",
    [
        f"```json\n{GOOD}\n```",
        f"```\n{GOOD}\n```",
        f"Sure! Here is the JSON you asked for:\n```json\n{GOOD}\n```\nAnything else?",
        f"Here it is: {GOOD} -- hope that helps.",
        f"<think>The user wants {{json}}.</think>\n{GOOD}",
    ],
)
def test_fenced_or_wrapped_json_is_accepted(llm_server: ScriptedLLMServer, content: str) -> None:
    llm_server.reply(content)
    client = make_client(llm_server)
    assert ask(client).answer == 42
    assert client.stats.failures == {}


def test_request_carries_json_schema_model_and_messages(llm_server: ScriptedLLMServer) -> None:
    llm_server.reply(GOOD)
    client = make_client(llm_server, llm_model="my-model-7b")
    client.complete_json("SYSTEM PROMPT", "USER PROMPT", Answer, name="an answer!")
    (request,) = llm_server.chat_requests
    body = request.json
    assert request.path == "/v1/chat/completions"
    assert body["model"] == "my-model-7b"
    assert body["temperature"] == 0
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "an_answer"
    assert fmt["json_schema"]["strict"] is False
    assert fmt["json_schema"]["schema"] == Answer.model_json_schema()
    assert request.message("system") == "SYSTEM PROMPT"
    assert request.message("user") == "USER PROMPT"
    assert request.headers["authorization"] == "Bearer test"


def test_complete_text(llm_server: ScriptedLLMServer) -> None:
    llm_server.reply("").reply("Paris.")
    client = make_client(llm_server)
    assert client.complete_text("Answer briefly.", "Capital of France?") == "Paris."
    assert client.stats.failures == {"empty_response": 1}
    assert "response_format" not in llm_server.chat_requests[-1].json


# -- retries -------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503, 429, 408, 409])
def test_retryable_status_then_success(llm_server: ScriptedLLMServer, status: int) -> None:
    llm_server.fail(status).reply(GOOD)
    client = make_client(llm_server)
    assert ask(client).answer == 42
    assert client.stats.retries == 1
    assert client.stats.attempts == 2
    assert client.stats.failures == {f"http_{status}": 1}
    assert client.stats.errors == 0
    assert len(llm_server.chat_requests) == 2


def test_retries_run_out_on_5xx(llm_server: ScriptedLLMServer) -> None:
    client = settled(make_client(llm_server), llm_server)
    for _ in range(3):
        llm_server.fail(500)
    llm_server.reply(GOOD)  # never reached: max_retries=2 means 3 attempts
    with pytest.raises(LLMError) as info:
        ask(client)
    assert info.value.reason == "http_500"
    assert info.value.status == 500
    assert info.value.attempts == 3
    assert "3 attempt" in str(info.value)
    assert client.stats.failures == {"http_500": 3}
    assert client.stats.retries == 2
    assert client.stats.errors == 1
    assert llm_server.pending() == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(llm_server: ScriptedLLMServer, status: int) -> None:
    client = settled(make_client(llm_server), llm_server)
    llm_server.fail(status).reply(GOOD)
    with pytest.raises(LLMError) as info:
        ask(client)
    assert str(status) in str(info.value)
    assert info.value.status == status
    assert info.value.reason == f"http_{status}"
    assert len(llm_server.chat_requests) == 1
    assert client.stats.retries == 0
    assert client.stats.failures == {f"http_{status}": 1}


def test_timeout_is_retried_then_fails_in_bounded_time(llm_server: ScriptedLLMServer) -> None:
    llm_server.hang(10).hang(10).reply(GOOD)
    client = make_client(llm_server, llm_timeout_s=0.3, llm_max_retries=1)
    started = time.monotonic()
    with pytest.raises(LLMError) as info:
        ask(client)
    elapsed = time.monotonic() - started
    assert info.value.reason == "timeout"
    assert client.stats.failures == {"timeout": 2}
    assert client.stats.retries == 1
    assert elapsed < 3.0  # two attempts of 0.3 s, plus tiny backoff


def test_timeout_then_success(llm_server: ScriptedLLMServer) -> None:
    llm_server.hang(10).reply(GOOD)
    # The timeout must outlast a good reply on a busy machine: at 0.3 s a CI run saw the
    # scripted answer itself time out, so the third attempt met the server's default reply.
    client = make_client(llm_server, llm_timeout_s=2.0)
    assert ask(client).answer == 42
    assert client.stats.failures == {"timeout": 1}


def test_connection_error_is_retried() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    settings = Settings(
        llm="openai",
        llm_base_url=f"http://127.0.0.1:{port}/v1",
        llm_api_key="test",
        llm_timeout_s=1,
        llm_max_retries=2,
    )
    client = LLMClient(settings, backoff_base_s=0.001)
    with pytest.raises(LLMError) as info:
        client.complete_text("s", "u")
    assert info.value.reason == "connection"
    assert client.stats.failures == {"connection": 3}


def test_garbage_counts_as_malformed_json_and_is_retried(llm_server: ScriptedLLMServer) -> None:
    llm_server.garbage().reply(GOOD)
    client = make_client(llm_server)
    assert ask(client).answer == 42
    assert client.stats.failures == {"malformed_json": 1}
    assert client.stats.retries == 1


def test_garbage_until_retries_run_out(llm_server: ScriptedLLMServer) -> None:
    llm_server.set_default(lambda request: "no JSON here, sorry")
    client = make_client(llm_server)
    with pytest.raises(LLMError) as info:
        ask(client)
    assert info.value.reason == "malformed_json"
    assert client.stats.failures == {"malformed_json": 3}


def test_null_content_counts_as_malformed(llm_server: ScriptedLLMServer) -> None:
    llm_server.reply(None).reply(GOOD)
    client = make_client(llm_server)
    assert ask(client).answer == 42
    assert client.stats.failures == {"malformed_json": 1}


def test_schema_invalid_json(llm_server: ScriptedLLMServer) -> None:
    llm_server.set_default(lambda request: '{"answer": "forty-two"}')
    client = make_client(llm_server)
    with pytest.raises(LLMError) as info:
        ask(client)
    assert info.value.reason == "invalid_schema"
    assert "answer" in str(info.value)
    assert client.stats.failures == {"invalid_schema": 3}
    assert client.stats.errors == 1


def test_schema_invalid_then_valid(llm_server: ScriptedLLMServer) -> None:
    llm_server.reply('{"answer": 1}').reply(GOOD)
    client = make_client(llm_server)
    assert ask(client).answer == 42
    assert client.stats.failures == {"invalid_schema": 1}


def test_backoff_is_exponential_jittered_capped_and_honours_retry_after(
    llm_server: ScriptedLLMServer,
) -> None:
    waits: list[float] = []
    client = LLMClient(
        settings_for(llm_server, llm_max_retries=4),
        backoff_base_s=0.2,
        backoff_cap_s=0.5,
        sleep=waits.append,
        rng=lambda: 1.0,
    )
    settled(client, llm_server)
    llm_server.fail(500).fail(500).fail(500).fail(429, headers={"retry-after": "3"}).reply(GOOD)
    assert ask(client).answer == 42
    assert waits == pytest.approx([0.2, 0.4, 0.5, 0.5])  # 0.2, 0.4, capped, retry-after capped
    low = LLMClient(settings_for(llm_server), backoff_base_s=0.2, rng=lambda: 0.0)
    assert low._backoff(0, None) == pytest.approx(0.1)  # equal jitter: half to full
    assert low._backoff(0, 2.0) == pytest.approx(2.0)


# -- learning the response format ------------------------------------------------------------


def test_a_server_refusing_json_schema_with_500_is_learnt_once(
    llm_server: ScriptedLLMServer,
) -> None:
    """llama-cpp-python's server answers json_schema with HTTP 500 and constrains
    json_object + schema: the first call finds that out, every later call asks for it."""
    llm_server.refuse("json_schema", 500).set_default(lambda request: GOOD)
    client = make_client(llm_server)
    for _ in range(4):
        assert ask(client) == Answer(answer=42, reason="because")
    formats = [format_of(r.json) for r in llm_server.chat_requests]
    # one 5xx may pass: json_schema is asked twice, then never again
    assert formats == ["json_schema", "json_schema"] + ["json_object+schema"] * 4
    assert client.response_format == "json_object+schema"
    assert client.stats.format_confirmed
    assert client.stats.format_fallbacks == 1
    assert client.stats.failures == {"http_500": 2}
    assert client.stats.retries == 1  # the second json_schema try; the step down is not one
    assert client.stats.errors == 0
    body = llm_server.chat_requests[2].json
    assert body["response_format"] == {"type": "json_object", "schema": Answer.model_json_schema()}
    assert body["messages"][0]["content"] == "You answer in JSON."  # the schema does the work


def test_format_refused_with_400_steps_down_at_once_to_plain_json_object(
    llm_server: ScriptedLLMServer,
) -> None:
    llm_server.refuse("json_schema", 400).refuse("json_object+schema", 422)
    llm_server.set_default(lambda request: GOOD)
    client = make_client(llm_server)
    assert ask(client).answer == 42
    assert ask(client).answer == 42
    formats = [format_of(r.json) for r in llm_server.chat_requests]
    assert formats == ["json_schema", "json_object+schema", "json_object", "json_object"]
    assert client.response_format == "json_object"
    assert client.stats.retries == 0
    assert client.stats.format_fallbacks == 2
    # without a schema in the request the system message carries it
    system = llm_server.chat_requests[-1].message("system")
    assert system.startswith("You answer in JSON.")
    assert json.dumps(Answer.model_json_schema(), separators=(",", ":")) in system


def test_one_passing_5xx_does_not_change_the_format(llm_server: ScriptedLLMServer) -> None:
    llm_server.fail(503).reply(GOOD).reply(GOOD)
    client = make_client(llm_server)
    ask(client)
    ask(client)
    assert [format_of(r.json) for r in llm_server.chat_requests] == ["json_schema"] * 3
    assert client.response_format == "json_schema" and client.stats.format_fallbacks == 0


def test_a_settled_format_is_kept_through_later_server_errors(
    llm_server: ScriptedLLMServer,
) -> None:
    client = settled(make_client(llm_server), llm_server)
    llm_server.fail(500).fail(502).reply(GOOD)
    assert ask(client).answer == 42
    assert [format_of(r.json) for r in llm_server.chat_requests] == ["json_schema"] * 3
    assert client.stats.retries == 2 and client.stats.format_fallbacks == 0


def test_a_server_refusing_every_format_fails_in_bounded_requests(
    llm_server: ScriptedLLMServer,
) -> None:
    for fmt in RESPONSE_FORMATS:
        llm_server.refuse(fmt, 500)
    client = make_client(llm_server)  # max_retries=2: 3 attempts, plus the two step downs
    with pytest.raises(LLMError) as info:
        ask(client)
    assert info.value.reason == "http_500"
    assert len(llm_server.chat_requests) == 5
    assert client.response_format == "json_object" and not client.stats.format_confirmed
    llm_server.clear()
    with pytest.raises(LLMError):  # the next call does not climb back up the ladder
        ask(client)
    assert [format_of(r.json) for r in llm_server.chat_requests] == ["json_object"] * 3


def test_malformed_answers_do_not_change_the_format(llm_server: ScriptedLLMServer) -> None:
    llm_server.garbage().garbage().garbage()
    client = make_client(llm_server)
    with pytest.raises(LLMError) as info:
        ask(client)
    assert info.value.reason == "malformed_json"
    assert client.response_format == "json_schema"
    assert not client.stats.format_confirmed


def test_text_completions_never_send_a_format(llm_server: ScriptedLLMServer) -> None:
    llm_server.refuse("json_schema", 500).set_default(lambda request: GOOD)
    client = make_client(llm_server)
    ask(client)
    llm_server.clear()
    llm_server.reply("Paris.")
    assert client.complete_text("Answer briefly.", "Capital of France?") == "Paris."
    assert format_of(llm_server.chat_requests[0].json) == "text"


# -- secrets -------------------------------------------------------------------------------

SECRET = "sk-proj-TOPSECRET0123456789abcdef"


def test_api_key_never_in_logs_or_errors(
    llm_server: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = {"error": {"message": f"Incorrect API key provided: {SECRET}.", "type": "auth"}}
    llm_server.fail(500, body=echo).fail(401, body=echo)
    client = make_client(llm_server, llm_api_key=SECRET)
    with pytest.raises(LLMError) as info:
        ask(client)
    assert llm_server.chat_requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert "401" in str(info.value)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    for text in (str(info.value), repr(info.value), caplog.text, repr(client)):
        assert SECRET not in text
        assert "TOPSECRET" not in text


# -- embeddings ----------------------------------------------------------------------------


def test_embeddings_round_trip(llm_server: ScriptedLLMServer) -> None:
    client = make_client(llm_server)
    vectors = client.embed(["hello world", "", "Hello, World!"], model="embed-x")
    assert len(vectors) == 3
    assert all(len(v) == llm_server.dimension for v in vectors)
    assert vectors[0] == pytest.approx(fake_embedding("hello world", llm_server.dimension))
    assert vectors[0] == pytest.approx(vectors[2])
    assert math.isclose(math.fsum(x * x for x in vectors[0]), 1.0, rel_tol=1e-6)
    (request,) = llm_server.embedding_requests
    assert request.json["model"] == "embed-x"
    assert request.json["input"] == ["hello world", " ", "Hello, World!"]
    assert client.embed([]) == []


def test_embeddings_default_model_and_retry(llm_server: ScriptedLLMServer) -> None:
    llm_server.fail(503, endpoint="embeddings")
    client = make_client(llm_server)
    assert len(client.embed(["a b c"])) == 1
    assert client.stats.failures == {"http_503": 1}
    assert [r.json["model"] for r in llm_server.embedding_requests] == ["test-embed"] * 2


def test_embeddings_base64_as_the_client_default_asks(llm_server: ScriptedLLMServer) -> None:
    raw = make_client(llm_server)._client  # the plain openai client, base64 by default
    response = raw.embeddings.create(model="m", input=["hello world"])
    assert response.data[0].embedding == pytest.approx(
        fake_embedding("hello world", llm_server.dimension), abs=1e-6
    )
    assert [m.id for m in raw.models.list()] == ["test-model"]


# -- JSON extraction -----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=60, deadline=None)
@given(
    obj=st.dictionaries(st.text(max_size=10), json_values, max_size=4),
    prefix=st.sampled_from(["", "Here you go: ", "Sure!\n```json\n", "```\n"]),
)
def test_extract_json_object_recovers_the_object(obj: dict[str, object], prefix: str) -> None:
    suffix = "\n```" if "```" in prefix else ""
    assert extract_json_object(prefix + json.dumps(obj) + suffix) == obj


@pytest.mark.parametrize("text", ["", "   ", "no json", "<think>{}</think>", "{broken: json"])
def test_extract_json_object_rejects_non_objects(text: str) -> None:
    with pytest.raises(ValueError):
        extract_json_object(text)


def test_max_tokens_is_sent_only_when_set(llm_server: ScriptedLLMServer) -> None:
    llm_server.set_default(lambda request: GOOD)
    ask(make_client(llm_server))
    ask(make_client(llm_server, llm_max_tokens=64))
    first, second = (r.json for r in llm_server.chat_requests)
    assert "max_tokens" not in first
    assert second["max_tokens"] == 64
