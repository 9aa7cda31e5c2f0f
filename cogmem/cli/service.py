"""``cogmem mcp``, ``cogmem serve`` and ``cogmem token …``: cogmem as a service.

The servers need the ``service`` extra (``pip install 'cogmem[service]'``), imported only
when a server starts, so the rest of the CLI stays fast and works without it.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from cogmem.cli.common import err, friendly, open_memory, out, print_json
from cogmem.cli.options import GroupOpt, PlainJsonOpt

if TYPE_CHECKING:
    from cogmem.api import Memory
    from cogmem.service.core import Service

token_app = typer.Typer(
    help="API tokens for `cogmem serve` and `cogmem mcp --http`: scoped to one group, "
    "stored hashed, shown once.",
    no_args_is_help=True,
)

HostOpt = Annotated[
    str, typer.Option("--host", help="Address to listen on (without auth: loopback only).")
]
NoAuthOpt = Annotated[
    bool,
    typer.Option(
        "--no-auth",
        help="No tokens: every caller gets --group and no other group (loopback only).",
    ),
]
AllowForgetOpt = Annotated[
    bool, typer.Option("--allow-forget", help="Offer deleting the caller's whole group.")
]
WorkersOpt = Annotated[
    int, typer.Option("--workers", help="Threads for blocking calls (the pool's bound).", min=1)
]
TimeoutOpt = Annotated[
    float,
    typer.Option(
        "--timeout",
        help="Seconds one call may take before a 503 (Neo4j down: 503 within 2 s).",
        min=1,
    ),
]
AllowedHostOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--allowed-host",
        help="A Host name this server answers to, besides loopback names and --host "
        "(repeat it; '*' for any, behind a proxy that checks Host). Others get 421.",
    ),
]
CorsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--cors-origin",
        help="A browser origin (https://app.example) allowed to call and read this "
        "server (repeat it). Default: none, CORS off; other origins get 403.",
    ),
]
ReadTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--read-timeout",
        help="Seconds a client may take to send a whole request, headers and body, from "
        "its connection's opening or its previous answer (then the connection is "
        "closed, or 408).",
        min=0.5,
    ),
]
MaxUnauthenticatedOpt = Annotated[
    int,
    typer.Option(
        "--max-unauthenticated",
        help="Connections that have not sent a whole request yet (so no token), at most; "
        "one more closes the one waiting longest. Below --max-connections.",
        min=1,
    ),
]
MaxConnectionsOpt = Annotated[
    int,
    typer.Option(
        "--max-connections",
        help="Open connections and requests in flight, at most (past it: 503).",
        min=1,
    ),
]
MaxBodyOpt = Annotated[
    int, typer.Option("--max-body", help="Largest JSON request body, bytes (else 413).", min=1024)
]


def _need_extra() -> None:
    try:
        import fastapi  # noqa: F401
        import mcp  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        from cogmem.config import ConfigError

        raise ConfigError(
            f"the servers need the service extra: pip install 'cogmem[service]' ({exc})"
        ) from None


def _service(
    mem: Memory,
    workers: int,
    timeout: float,
    max_body: int,
    forget: bool,
    read_timeout: float,
    groups: list[str] | None,
) -> Service:
    """The service over ``mem``; it writes the stored live turns of ``groups`` (None: of
    every group, a server with tokens) that stopped writers left, now and every few seconds."""
    from cogmem.api import StoreError
    from cogmem.live import LEASE_S
    from cogmem.service.core import Limits, Service

    limits = Limits(
        workers=workers, timeout_s=timeout, max_body_bytes=max_body, read_timeout_s=read_timeout
    )
    service = Service(mem, limits, allow_forget=forget)
    try:  # the turns a stopped server had answered 202 and not written yet
        service.resume_pending(groups)
    except StoreError as exc:
        err.print(
            "[yellow]warning:[/] stored live turns not resumed yet (tried again every few "
            "seconds): " + escape(str(exc))
        )
    service.keep_resuming(groups, every_s=max(1.0, LEASE_S / 3))
    return service


def _run(app: object, host: str, port: int, bounds: tuple[float, int, int]) -> None:
    from cogmem.service.http_server import run

    read_timeout, max_connections, max_pending = bounds
    run(
        app,
        host,
        port,
        max_connections=max_connections,
        header_timeout_s=read_timeout,
        max_pending=max_pending,
    )


@friendly
def mcp(
    ctx: typer.Context,
    group: GroupOpt = None,
    http: Annotated[bool, typer.Option("--http", help="Streamable HTTP instead of stdio.")] = False,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP port (with --http).")] = 8765,
    no_auth: NoAuthOpt = False,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="stdio: offer no write (remember, forget).")
    ] = False,
    allow_forget: AllowForgetOpt = False,
    workers: WorkersOpt = 8,
    timeout: TimeoutOpt = 60.0,
    max_body: MaxBodyOpt = 1 << 20,
    allowed_host: AllowedHostOpt = None,
    cors_origin: CorsOpt = None,
    read_timeout: ReadTimeoutOpt = 10.0,
    max_connections: MaxConnectionsOpt = 64,
    max_unauthenticated: MaxUnauthenticatedOpt = 32,
) -> None:
    """An MCP server: stdio for one client and --group (default), or streamable HTTP at
    /mcp where each client's bearer token decides its group."""
    _need_extra()
    from cogmem.service.guards import allowed_hosts
    from cogmem.service.http_server import check_caps, check_port
    from cogmem.service.limits import check_bind
    from cogmem.service.mcp_server import http_app, run_stdio
    from cogmem.service.tokens import Grant

    if http:  # a bad port, bind or cap is one line, before anything is printed
        check_bind(host, auth=not no_auth)
        check_port(host, port)
        check_caps(max_connections, max_unauthenticated)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    with open_memory(ctx, group) as mem:
        scope = None if http and not no_auth else [mem.group]  # tokens: any group
        service = _service(mem, workers, timeout, max_body, allow_forget, read_timeout, scope)
        if not http:
            run_stdio(service, Grant(group=mem.group, read_only=read_only))
            return
        hosts = allowed_hosts(host, allowed_host or ())
        app = http_app(
            service, not no_auth, mem.group, host, hosts=hosts, cors_origins=cors_origin or ()
        )
        err.print(f"cogmem MCP (streamable HTTP) on http://{host}:{port}/mcp")
        _run(app, host, port, (read_timeout, max_connections, max_unauthenticated))


@friendly
def serve(
    ctx: typer.Context,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    group: Annotated[
        str | None,
        typer.Option(
            "--group", "-g", help="With --no-auth: the one group served (any other is 403)."
        ),
    ] = None,
    no_auth: NoAuthOpt = False,
    allow_forget: AllowForgetOpt = False,
    workers: WorkersOpt = 8,
    timeout: TimeoutOpt = 60.0,
    max_body: MaxBodyOpt = 1 << 20,
    allowed_host: AllowedHostOpt = None,
    cors_origin: CorsOpt = None,
    read_timeout: ReadTimeoutOpt = 10.0,
    max_connections: MaxConnectionsOpt = 64,
    max_unauthenticated: MaxUnauthenticatedOpt = 32,
) -> None:
    """The HTTP API (docs at /docs): remember, search, context, ask, ingest by upload."""
    _need_extra()
    from cogmem.service.guards import allowed_hosts
    from cogmem.service.http_api import create_app
    from cogmem.service.http_server import check_caps, check_port
    from cogmem.service.limits import check_bind

    check_bind(host, auth=not no_auth)
    check_port(host, port)
    check_caps(max_connections, max_unauthenticated)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    with open_memory(ctx, group) as mem:
        scope = [mem.group] if no_auth else None  # tokens: any group
        service = _service(mem, workers, timeout, max_body, allow_forget, read_timeout, scope)
        app = create_app(
            service,
            auth=not no_auth,
            default_group=mem.group,
            hosts=allowed_hosts(host, allowed_host or ()),
            cors_origins=cors_origin or (),
        )
        err.print(f"cogmem HTTP API on http://{host}:{port} (docs at /docs)")
        _run(app, host, port, (read_timeout, max_connections, max_unauthenticated))


@token_app.command("create")
@friendly
def token_create(
    ctx: typer.Context,
    group: Annotated[str, typer.Option("--group", "-g", help="The group the token may use.")],
    read_only: Annotated[bool, typer.Option("--read-only", help="Search only, no writes.")] = False,
    name: Annotated[str | None, typer.Option("--name", help="A note to recognise it.")] = None,
    as_json: PlainJsonOpt = False,
) -> None:
    """Create a token for one group; the secret is printed once and never stored."""
    group = group.strip()  # "  alice  " is group "alice", as the servers see it
    with open_memory(ctx, group) as mem:
        created = mem.admin.tokens().create(group, read_only=read_only, name=name)
    if as_json:
        print_json({"token": created.secret, **created.grant.model_dump(mode="json")})
        return
    sys.stdout.write(created.secret + "\n")
    mode = "read-only" if read_only else "read-write"
    err.print(
        f"token {created.grant.token_id} for group {escape(group)!r} ({mode}); "
        "this is the only time the secret is shown"
    )


@token_app.command("list")
@friendly
def token_list(ctx: typer.Context, group: GroupOpt = None, as_json: PlainJsonOpt = False) -> None:
    """The tokens (ids, groups, modes; never the secrets)."""
    with open_memory(ctx, group) as mem:
        grants = mem.admin.tokens().list(group)
    if as_json:
        print_json([g.model_dump(mode="json") for g in grants])
        return
    table = Table(title="API tokens")
    for col in ("id", "group", "mode", "name", "created"):
        table.add_column(col)
    for g in grants:
        table.add_row(
            g.token_id or "",
            escape(g.group),
            "read-only" if g.read_only else "read-write",
            escape(g.name or ""),
            f"{g.created_at:%Y-%m-%d %H:%M}" if g.created_at else "",
        )
    out.print(table)


@token_app.command("revoke")
@friendly
def token_revoke(
    ctx: typer.Context,
    token_id: Annotated[str, typer.Argument(help="The token's id (from `token list`).")],
) -> None:
    """Revoke a token by its id (running servers stop accepting it within 1 s)."""
    with open_memory(ctx) as mem:
        revoked = mem.admin.tokens().revoke(token_id)
    if not revoked:
        err.print(f"[bold red]error:[/] no token with id {escape(token_id)!r}")
        raise typer.Exit(1)
    err.print(f"revoked token {escape(token_id)}")
