"""``cogmem mcp``: an MCP server (official ``mcp`` SDK), a thin shell over :class:`Service`.

Over stdio the group is the server's own (``--group``); over streamable HTTP it is the
bearer token's. No tool takes a group argument: a model can never name another group.
``forget_group`` exists only when the server is started with ``--allow-forget``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from cogmem.service.core import AnswerOut, ContextOut, EvidenceOut, Remembered, Service
from cogmem.service.limits import GRANT_KEY, BearerAuth, BodyLimit
from cogmem.service.tokens import Grant

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
    server: MCPServer = MCPServer("cogmem", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(
        description=(
            "Remember one conversation turn verbatim: who said it, what was said, when "
            "(ISO-8601, default now) and in which conversation (default 'live'). Records "
            "(events, facts, opinions, decisions, todos) are extracted from it."
        )
    )
    async def remember(
        speaker: Annotated[str, Field(min_length=1, max_length=200, description="who said it")],
        text: Annotated[str, Field(min_length=1, max_length=100_000, description="verbatim")],
        time: Annotated[datetime | None, Field(description="when it was said")] = None,
        conversation: Annotated[str, Field(min_length=1, max_length=200)] = "live",
        wait: Annotated[
            bool, Field(description="false: return once queued; searches wait for it")
        ] = True,
        ctx: Context | None = None,
    ) -> Remembered:
        g = _grant(ctx, grant)
        return await service.call(
            service.remember, g, g.group, speaker, text, time, conversation, wait
        )

    @server.tool(
        description=(
            "Search memory: ranked evidence for a question or keywords, each with its "
            "speaker, time, turn id and verbatim quote."
        )
    )
    async def search(
        query: Annotated[str, Field(max_length=20_000, description="question or keywords")],
        k: Annotated[int, Field(ge=1, le=50, description="how many results")] = 10,
        ctx: Context | None = None,
    ) -> SearchResult:
        g = _grant(ctx, grant)
        found = await service.call(service.search, g, g.group, query, k)
        return SearchResult(group=g.group, evidence=found)

    @server.tool(
        description=(
            "A prompt-ready block of the memory relevant to a question, packed to fit "
            "a token budget, with the evidence it includes."
        )
    )
    async def context(
        query: Annotated[str, Field(max_length=20_000, description="the question")],
        budget_tokens: Annotated[int, Field(ge=50, le=100_000)] = 2000,
        ctx: Context | None = None,
    ) -> ContextOut:
        g = _grant(ctx, grant)
        return await service.call(service.context, g, g.group, query, budget_tokens)

    @server.tool(description="Answer a question from memory; returns the answer and its evidence.")
    async def ask(
        question: Annotated[str, Field(max_length=20_000)],
        k: Annotated[int, Field(ge=1, le=50)] = 10,
        ctx: Context | None = None,
    ) -> AnswerOut:
        g = _grant(ctx, grant)
        return await service.call(service.ask, g, g.group, question, k)

    @server.tool(description="The memory groups this session may use (fixed by the server).")
    async def list_groups(ctx: Context | None = None) -> Groups:
        return Groups(groups=[_grant(ctx, grant).group])

    if service.allow_forget:

        @server.tool(
            description=(
                "Delete everything this session's memory group holds (turns, records, "
                "facts). Irreversible; other groups are untouched."
            )
        )
        async def forget_group(
            confirm: Annotated[bool, Field(description="must be true")],
            ctx: Context | None = None,
        ) -> Forgotten:
            g = _grant(ctx, grant)
            if not confirm:
                raise ValueError("pass confirm=true to forget the group")
            return Forgotten(group=g.group, deleted=await service.call(service.forget, g, g.group))

    return server


def run_stdio(service: Service, grant: Grant) -> None:
    build_server(service, grant).run("stdio")


def http_app(service: Service, auth: bool, group: str | None, host: str) -> Any:
    """The streamable HTTP app at ``/mcp``, behind the bearer-token and size guards."""
    from mcp.server.transport_security import TransportSecuritySettings

    fixed = None if auth else Grant(group=group or "default")
    server = build_server(service, fixed)
    security = None
    if host in ("0.0.0.0", "::"):  # reachable by any name: tokens guard it, not the Host header
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.streamable_http_app(
        stateless_http=True, json_response=True, transport_security=security, host=host
    )
    guarded = BearerAuth(
        app,
        service.tokens if auth else None,
        default=fixed,
        check=lambda fn: service.call(fn),
    )
    return BodyLimit(guarded, limit=service.limits.max_body_bytes)
