"""``cogmem mcp``: an MCP server (official ``mcp`` SDK), a thin shell over :class:`Service`.

Over stdio the group is the server's own (``--group``); over streamable HTTP it is the
bearer token's. No tool takes a group argument: a model can never name another group.
``forget_group`` and ``forget`` (turns, a conversation or a span) exist only when the server
is started with ``--allow-forget``, and never for a read-only grant (stdio); over HTTP a
read-only token that calls them is refused.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from cogmem.forget import ForgetSummary
from cogmem.service import policy
from cogmem.service.core import (
    AnswerOut,
    ContextOut,
    EvidenceOut,
    Forbidden,
    Remembered,
    Service,
    Unavailable,
)
from cogmem.service.guards import allowed_hosts, bounded, wrap
from cogmem.service.limits import (
    GRANT_KEY,
    ASGIApp,
    BearerAuth,
    Receive,
    Scope,
    Send,
    send_json,
)
from cogmem.service.tokens import Grant

T = TypeVar("T")
READ = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

INSTRUCTIONS = (
    "cogmem is a long-term memory of conversations. Call `remember` for each turn worth "
    "keeping (who said it, what, when), `search` or `context` before answering from memory, "
    "and `ask` for a direct answer. Every result carries its evidence: speaker, time, turn "
    "id and the verbatim quote; cite them. The memory group is fixed by the server."
)


class SearchResult(BaseModel):
    group: str
    evidence: list[EvidenceOut]


class Groups(BaseModel):
    groups: list[str]


class Forgotten(BaseModel):
    group: str
    deleted: int


class PolicyServer(MCPServer):
    """The SDK's server, with argument errors in one line (the policy's words)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                cause = exc.__cause__
                raise ToolError(f"{name}: {policy.reason(cause)}") from cause
            raise


async def guarded(tool: str, work: Awaitable[T]) -> T:
    """A client's error as the tool's one-line error text; a bug logged with a request id."""
    try:
        return await work
    except ToolError:
        raise
    except ValidationError as exc:
        raise ToolError(f"{tool}: {policy.reason(exc)}") from None
    except (Forbidden, Unavailable, PermissionError, ValueError) as exc:
        raise ToolError(f"{tool}: {policy.one_line(str(exc))}") from None
    except Exception as exc:
        _, message = policy.bug(f"tool {tool}", exc)
        raise ToolError(f"{tool}: {message}") from None


def _grant(ctx: Context | None, fixed: Grant | None) -> Grant:
    """The grant of this call: the server's (stdio, no auth) or the HTTP request's token."""
    if fixed is not None:
        return fixed
    request = ctx.request_context.request if ctx is not None else None
    grant = getattr(request, "scope", {}).get(GRANT_KEY) if request is not None else None
    if not isinstance(grant, Grant):
        raise PermissionError("no valid token for this request")
    return grant


def build_server(service: Service, grant: Grant | None) -> MCPServer:
    """The MCP server. ``grant``: the fixed grant (stdio, or HTTP without auth); None
    means every HTTP request brings its own token."""
    server: MCPServer = PolicyServer("cogmem", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(
        description=(
            "Remember one conversation turn verbatim: who said it, what was said, when "
            "(ISO-8601, default now) and in which conversation (default 'live'). Records "
            "(events, facts, opinions, decisions, todos) are extracted from it. Give it "
            "an id to make a retry safe: the same id again changes nothing."
        ),
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,  # only with an id: a turn without one is a new turn
            open_world_hint=False,
        ),
    )
    async def remember(
        speaker: policy.Speaker,
        text: policy.Text,
        time: policy.When = None,
        conversation: policy.Conversation = "live",
        wait: policy.Wait = True,
        id: policy.TurnId = None,
        ctx: Context | None = None,
    ) -> Remembered:
        g = _grant(ctx, grant)
        return await guarded(
            "remember",
            service.call(service.remember, g, g.group, speaker, text, time, conversation, wait, id),
        )

    @server.tool(
        description=(
            "Search memory: ranked evidence for a question or keywords, each with its "
            "speaker, time, turn id and verbatim quote."
        ),
        annotations=READ,
    )
    async def search(
        query: policy.Query,
        k: policy.K = 10,
        as_of: policy.AsOf = None,
        ctx: Context | None = None,
    ) -> SearchResult:
        g = _grant(ctx, grant)
        found = await guarded("search", service.call(service.search, g, g.group, query, k, as_of))
        return SearchResult(group=g.group, evidence=found)

    @server.tool(
        description=(
            "A prompt-ready block of the memory relevant to a question, packed to fit "
            "a token budget, with the evidence it includes."
        ),
        annotations=READ,
    )
    async def context(
        query: policy.Query,
        budget_tokens: policy.Budget = 2000,
        as_of: policy.AsOf = None,
        ctx: Context | None = None,
    ) -> ContextOut:
        g = _grant(ctx, grant)
        return await guarded(
            "context", service.call(service.context, g, g.group, query, budget_tokens, as_of)
        )

    @server.tool(
        description="Answer a question from memory; returns the answer and its evidence.",
        annotations=READ,
    )
    async def ask(
        question: policy.Query,
        k: policy.K = 10,
        as_of: policy.AsOf = None,
        ctx: Context | None = None,
    ) -> AnswerOut:
        g = _grant(ctx, grant)
        return await guarded("ask", service.call(service.ask, g, g.group, question, k, as_of))

    @server.tool(
        description="The memory groups this session may use (fixed by the server).",
        annotations=ToolAnnotations(
            read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
    )
    async def list_groups(ctx: Context | None = None) -> Groups:
        return Groups(groups=[_grant(ctx, grant).group])

    if service.allow_forget:

        @server.tool(
            description=(
                "Delete everything this session's memory group holds (turns, records, "
                "facts). Irreversible; other groups are untouched."
            ),
            annotations=ToolAnnotations(
                read_only_hint=False,
                destructive_hint=True,
                idempotent_hint=True,
                open_world_hint=False,
            ),
        )
        async def forget_group(
            confirm: Annotated[bool, Field(description="must be true")],
            ctx: Context | None = None,
        ) -> Forgotten:
            g = _grant(ctx, grant)
            if not confirm:
                raise ToolError("forget_group: pass confirm=true to forget the group")
            deleted = await guarded("forget_group", service.call(service.forget, g, g.group))
            return Forgotten(group=g.group, deleted=deleted)

    if service.allow_forget and (grant is None or grant.may_write()):

        @server.tool(
            description=(
                "Forget precisely: delete turns (their ids; with `conversation`, the source "
                "ids of that conversation), a whole `conversation` (alone), or the turns "
                "said from `start` to `end` (ISO dates or times, both included; a date is "
                "its whole day), by `speaker` if given; and every record, fact and link "
                "that rests only on them. Irreversible; `dry_run` only says what would go. "
                "An audit entry records when, what kind and how many, never what was said."
            ),
            annotations=ToolAnnotations(
                read_only_hint=False,
                destructive_hint=True,
                idempotent_hint=False,  # a second call finds nothing and is refused
                open_world_hint=False,
            ),
        )
        async def forget(
            turns: Annotated[
                list[policy.ForgetTurnId] | None,
                Field(max_length=policy.MAX_FORGET_TURNS, description="turn ids to forget"),
            ] = None,
            conversation: policy.Conversation | None = None,
            start: Annotated[str | None, Field(max_length=64, description="span start")] = None,
            end: Annotated[str | None, Field(max_length=64, description="span end")] = None,
            speaker: policy.Speaker | None = None,
            dry_run: policy.DryRun = False,
            ctx: Context | None = None,
        ) -> ForgetSummary:
            g = _grant(ctx, grant)

            async def work() -> ForgetSummary:
                what = policy.ForgetIn.model_validate(
                    {
                        "turns": turns,
                        "conversation": conversation,
                        "from": start,
                        "to": end,
                        "speaker": speaker,
                        "dry_run": dry_run,
                    }
                )
                return await service.call(service.forget_what, g, g.group, what)

            return await guarded("forget", work())

    return server


def run_stdio(service: Service, grant: Grant) -> None:
    build_server(service, grant).run("stdio")


def http_app(
    service: Service,
    auth: bool,
    group: str | None,
    host: str,
    hosts: frozenset[str] | None = None,
    cors_origins: Sequence[str] = (),
) -> Any:
    """The streamable HTTP app at ``/mcp``, behind the guards the HTTP API has too (Host
    and Origin by :mod:`cogmem.service.guards`, bearer token, then size), POST only."""
    from mcp.server.transport_security import TransportSecuritySettings

    fixed = None if auth else Grant(group=group or "default")
    server = build_server(service, fixed)
    # the Host and Origin rule is HostCheck's, the same as the HTTP API's
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.streamable_http_app(
        stateless_http=True, json_response=True, transport_security=security, host=host
    )
    guarded = BearerAuth(
        bounded(service, no_event_stream(app)),  # no body is read before the token
        service.tokens if auth else None,
        default=fixed,
        check=lambda fn: service.call(fn),
    )
    return wrap(guarded, hosts or allowed_hosts(host), cors_origins)


def no_event_stream(app: ASGIApp) -> ASGIApp:
    """405 for ``GET /mcp``, the standalone event stream: this server is stateless and
    answers each call in its response, so it never sends anything on that stream, and an
    open one would only hold a connection (63 of them, with any token, took every slot).
    The MCP spec lets a server answer 405 there; clients then use POST only."""

    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "GET":
            await send_json(
                send,
                405,
                {"detail": "this MCP server offers no event stream: send calls with POST"},
                extra=[(b"allow", b"POST, DELETE")],
            )
            return
        await app(scope, receive, send)

    return guard
