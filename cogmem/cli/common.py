"""What every CLI command shares: the consoles, the friendly-error wrapper, settings from
the command line, the Memory a command works on, JSON output."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from cogmem.api import Memory
    from cogmem.config import Settings

out = Console()
err = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


def known_errors() -> tuple[type[BaseException], ...]:
    """The errors cogmem explains itself (imported lazily: the CLI starts fast)."""
    from cogmem.api import StoreError
    from cogmem.config import ConfigError
    from cogmem.embed import EmbedderUnavailable
    from cogmem.ingest import ReaderError
    from cogmem.server.local import ServerError

    return (ConfigError, StoreError, ServerError, ReaderError, EmbedderUnavailable)


def friendly(func: F) -> F:
    """Turn the errors cogmem explains into a red message and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except known_errors() as exc:
            err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature


def settings_from(ctx: typer.Context, **more: Any) -> Settings:
    """Settings: config file < environment < global flags < this command's flags."""
    from cogmem.config import load_settings

    root = ctx.find_root()
    overrides = dict(root.obj) if isinstance(root.obj, dict) else {}
    overrides.update({k: v for k, v in more.items() if v is not None})
    return load_settings(overrides)


def open_memory(ctx: typer.Context, group: str | None = None, llm: str | None = None) -> Memory:
    """The Memory a command works on: settings from the command line, this group and LLM."""
    from cogmem.api import Memory

    return Memory(settings_from(ctx, group=group, llm=llm))


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
