"""``cogmem serve``: the HTTP API (FastAPI), a thin shell over :class:`Service`.

Every route but ``/healthz`` and the docs needs ``Authorization: Bearer <token>`` (unless
the server runs without auth, loopback only); the ``{group}`` in the path must be the
token's group (else 403) and writes need a token that is not read-only. Errors are JSON
(``{"detail": …}``); Neo4j down or slow is 503 with the reason.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from fastapi import (
    FastAPI,
    File,
    Form,
    Header,
    HTTPException,
    Query,
    Request,
    Response,
    UploadFile,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel

from cogmem.forget import ForgetSummary, NothingToForget
from cogmem.ingest import ReaderError
from cogmem.live import TurnIdConflict
from cogmem.service.core import (
    AnswerOut,
    ContextOut,
    EvidenceOut,
    Forbidden,
    IngestOut,
    Remembered,
    Service,
    Unavailable,
)
from cogmem.service.docs_page import render as render_docs
from cogmem.service.guards import bounded, wrap
from cogmem.service.limits import GRANT_KEY, LOGGED_KEY, BearerAuth
from cogmem.service.policy import (
    AskIn,
    ContextIn,
    DryRun,
    ForgetIn,
    ForgetTurnId,
    SearchIn,
    TurnId,
    TurnIn,
    bug,
    one_line,
    reason,
)
from cogmem.service.policy import Conversation as ConversationName
from cogmem.service.policy import GroupName as GroupPath
from cogmem.service.tokens import Grant

log = logging.getLogger("cogmem.service")
PUBLIC = ("/healthz", "/docs", "/openapi.json")


class SearchOut(BaseModel):
    group: str
    evidence: list[EvidenceOut]


class Forgotten(BaseModel):
    group: str
    deleted: int


def _grant(request: Request) -> Grant:
    grant = request.scope.get(GRANT_KEY)
    if not isinstance(grant, Grant):  # BearerAuth always sets it; never trust its absence
        raise HTTPException(401, "missing bearer token")
    return grant


def create_app(
    service: Service,
    auth: bool = True,
    default_group: str | None = None,
    hosts: frozenset[str] | None = None,
    cors_origins: Sequence[str] = (),
) -> Any:
    """The ASGI app: FastAPI routes wrapped in the guards: Host and Origin
    (``hosts``: :func:`~cogmem.service.guards.allowed_hosts`, loopback names by default;
    CORS only for ``cors_origins``), size, auth, and the last resort for a bug."""
    api = FastAPI(
        title="cogmem",
        version="1",
        description=(
            "Long-term, provenance-aware memory for LLM conversations. Every route under "
            "/v1 needs `Authorization: Bearer <token>` (`cogmem token create --group G`); "
            "a token reaches its own group only."
        ),
        docs_url=None,  # Swagger UI's assets come from a CDN: /docs is a local page instead
        redoc_url=None,
    )

    @api.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(render_docs(api.openapi()))

    @api.exception_handler(Unavailable)
    async def _unavailable(_: Request, exc: Unavailable) -> JSONResponse:
        return JSONResponse({"detail": one_line(str(exc))}, status_code=503)

    @api.exception_handler(Forbidden)
    async def _forbidden(_: Request, exc: Forbidden) -> JSONResponse:
        return JSONResponse({"detail": one_line(str(exc))}, status_code=403)

    @api.exception_handler(TurnIdConflict)  # an id sent again with another turn
    async def _conflict(_: Request, exc: TurnIdConflict) -> JSONResponse:
        return JSONResponse({"detail": one_line(str(exc))}, status_code=409)

    @api.exception_handler(NothingToForget)  # a turn, conversation or span that holds nothing
    async def _not_found(_: Request, exc: NothingToForget) -> JSONResponse:
        return JSONResponse({"detail": one_line(str(exc))}, status_code=404)

    @api.exception_handler(ValueError)  # ConfigError, ReaderError, QuestionError, …
    async def _bad_input(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": one_line(str(exc))}, status_code=400)

    @api.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()[:10]
        ]
        return JSONResponse({"detail": reason(exc.errors()), "errors": errors}, status_code=422)

    @api.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        rid, message = bug(f"{request.method} {request.url.path}", exc)
        request.scope[LOGGED_KEY] = True  # CatchAll: logged once, with its request id
        return JSONResponse({"detail": message, "request_id": rid}, 500)

    @api.get("/healthz", summary="Is the service up and Neo4j reachable?")
    async def healthz() -> JSONResponse:
        try:
            with_timeout = service.limits.health_timeout_s
            import anyio

            with anyio.fail_after(with_timeout):
                body = await service.call(service.health)
        except (Unavailable, TimeoutError) as exc:
            reason = one_line(str(exc)) or f"no answer within {with_timeout:g} s"
            return JSONResponse({"status": "unavailable", "detail": reason}, status_code=503)
        return JSONResponse(body)

    @api.get("/v1/groups", summary="The groups this token may use")
    async def list_groups(request: Request) -> dict[str, list[str]]:
        return {"groups": [_grant(request).group]}

    @api.post("/v1/groups/{group}/turns", summary="Remember one turn", status_code=201)
    async def remember(
        group: GroupPath,
        body: TurnIn,
        request: Request,
        response: Response,
        idempotency_key: Annotated[
            TurnId,
            Header(description="the turn's id, as the body's `id` (either, or both alike)"),
        ] = None,
    ) -> Remembered:
        grant = _grant(request)
        service.authorize(grant, group, write=True)
        if body.id and idempotency_key and body.id != idempotency_key:
            raise ValueError("the body's id and the Idempotency-Key header differ")
        done = await service.call(
            service.remember,
            grant,
            group,
            body.speaker,
            body.text,
            body.time,
            body.conversation,
            body.wait,
            body.id or idempotency_key,
        )
        if done.queued:
            response.status_code = 202
        return done

    @api.post("/v1/groups/{group}/search", summary="Ranked, grounded evidence")
    async def search(group: GroupPath, body: SearchIn, request: Request) -> SearchOut:
        grant = _grant(request)
        service.authorize(grant, group)
        found = await service.call(service.search, grant, group, body.query, body.k, body.as_of)
        return SearchOut(group=group, evidence=found)

    @api.post("/v1/groups/{group}/context", summary="A prompt block under a token budget")
    async def context(group: GroupPath, body: ContextIn, request: Request) -> ContextOut:
        grant = _grant(request)
        service.authorize(grant, group)
        return await service.call(
            service.context, grant, group, body.query, body.budget_tokens, body.as_of
        )

    @api.post("/v1/groups/{group}/ask", summary="An answer from memory, with its evidence")
    async def ask(group: GroupPath, body: AskIn, request: Request) -> AnswerOut:
        grant = _grant(request)
        service.authorize(grant, group)
        return await service.call(service.ask, grant, group, body.question, body.k, body.as_of)

    @api.post("/v1/groups/{group}/ingest", summary="Ingest an uploaded file", status_code=201)
    async def ingest(
        group: GroupPath,
        request: Request,
        file: Annotated[UploadFile, File(description="LoCoMo JSON, JSONL chat, OpenAI")],
        format: Annotated[str, Form(description="auto | locomo | jsonl | openai")] = "auto",
    ) -> IngestOut:
        grant = _grant(request)
        service.authorize(grant, group, write=True)
        suffix = Path(file.filename or "upload").suffix[:10]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"upload{suffix}"
            path.write_bytes(await file.read())
            try:
                return await service.call(service.ingest, grant, group, path, format)
            except ReaderError as exc:  # name the upload, not the server's temporary file
                detail = str(exc).replace(str(path), file.filename or "upload")
                return JSONResponse({"detail": detail}, status_code=400)  # type: ignore[return-value]

    @api.delete("/v1/groups/{group}", summary="Forget a group (needs --allow-forget)")
    async def forget(group: GroupPath, request: Request) -> Forgotten:
        grant = _grant(request)
        if not service.allow_forget:
            raise Forbidden("forgetting a group is off (start the server with --allow-forget)")
        service.authorize(grant, group, write=True)
        return Forgotten(group=group, deleted=await service.call(service.forget, grant, group))

    async def _forget(group: str, request: Request, what: ForgetIn) -> ForgetSummary:
        grant = _grant(request)
        if not service.allow_forget:
            raise Forbidden("forgetting is off on this server (start it with --allow-forget)")
        service.authorize(grant, group, write=True)
        return await service.call(service.forget_what, grant, group, what)

    @api.delete(
        "/v1/groups/{group}/turns/{turn_id}",
        summary="Forget one turn and what rests on it (needs --allow-forget)",
    )
    async def forget_turn(
        group: GroupPath,
        turn_id: ForgetTurnId,
        request: Request,
        conversation: Annotated[
            ConversationName | None,
            Query(description="the conversation whose source id `turn_id` is"),
        ] = None,
        dry_run: Annotated[DryRun, Query()] = False,
    ) -> ForgetSummary:
        what = ForgetIn(turns=[turn_id], conversation=conversation, dry_run=dry_run)
        return await _forget(group, request, what)

    @api.delete(
        "/v1/groups/{group}/conversations/{conversation}",
        summary="Forget a whole conversation and what rests on it (needs --allow-forget)",
    )
    async def forget_conversation(
        group: GroupPath,
        conversation: ConversationName,
        request: Request,
        dry_run: Annotated[DryRun, Query()] = False,
    ) -> ForgetSummary:
        return await _forget(group, request, ForgetIn(conversation=conversation, dry_run=dry_run))

    @api.post(
        "/v1/groups/{group}/forget",
        summary="Forget turns, a conversation or a span of time (needs --allow-forget)",
    )
    async def forget_some(group: GroupPath, body: ForgetIn, request: Request) -> ForgetSummary:
        return await _forget(group, request, body)

    # without auth every caller is this one grant: the server's group, and no other
    default = None if auth else Grant(group=default_group or "default")
    guarded = BearerAuth(
        bounded(service, api, upload_suffix="/ingest"),  # no body is read before the token
        service.tokens if auth else None,
        default=default,
        public=PUBLIC,
        check=lambda fn: service.call(fn),
    )
    return wrap(guarded, hosts, cors_origins)
