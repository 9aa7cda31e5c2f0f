"""What every CLI command shares: the consoles, the error policy, settings from the command
line, the Memory a command works on, JSON output, group hints.

The error policy: every failure is one line on stderr, ``error: <what and where>``, and exit
code 1 (2 for a usage error, from click); the traceback only with ``cogmem --debug``.
:func:`report` words an exception; the app's group calls it for anything a command raises.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from datetime import datetime
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
TITLE_CHARS = 80
"""A question longer than this is cut (with …) where it is echoed as a title."""


class State:
    """Process-wide CLI state set by the global options."""

    debug: bool = bool(os.environ.get("COGMEM_DEBUG"))


def known_errors() -> tuple[type[BaseException], ...]:
    """The errors cogmem explains itself (imported lazily: the CLI starts fast)."""
    from cogmem.api import QuestionError, StoreError
    from cogmem.config import ConfigError
    from cogmem.embed import EmbedderUnavailable
    from cogmem.ingest import ReaderError
    from cogmem.llm import LLMError
    from cogmem.local_llm import LocalLLMError, WeightsError
    from cogmem.server.local import ServerError

    return (
        ConfigError,
        StoreError,
        ServerError,
        ReaderError,
        EmbedderUnavailable,
        QuestionError,
        LLMError,
        WeightsError,
        LocalLLMError,
    )


def one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def describe(exc: BaseException) -> str:
    """One line naming what went wrong and where (without the ``error:`` prefix)."""
    if isinstance(exc, known_errors()):
        return one_line(str(exc))
    from neo4j.exceptions import Neo4jError

    if isinstance(exc, Neo4jError):
        return one_line(f"Neo4j refused a statement ({exc.code}): {exc.message}")
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return one_line(f"{where}{exc.strerror}")
    if isinstance(exc, ModuleNotFoundError):
        return one_line(f"a Python package is missing ({exc}); reinstall cogmem (scripts/setup)")
    detail = str(exc) or "no detail"
    return one_line(f"{type(exc).__name__}: {detail} (run `cogmem --debug …` for the traceback)")


def report(exc: BaseException) -> None:
    """Print ``error: …`` for ``exc``, one line, on stderr (never failing itself: a broken
    import while explaining is reported as the plain error)."""
    try:
        line = describe(exc)
    except Exception:
        line = one_line(f"{type(exc).__name__}: {exc} (run `cogmem --debug …` for the traceback)")
    err.print(f"[bold red]error:[/] {escape(line)}", highlight=False, soft_wrap=True)


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` and return the Exit to raise (exit code 1)."""
    err.print(f"[bold red]error:[/] {escape(one_line(message))}", highlight=False, soft_wrap=True)
    return typer.Exit(1)


def friendly(func: F) -> F:
    """Turn any error a command raises into one line and exit code 1 (the traceback only
    with ``--debug``). The app's group does the same for commands without it."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            from typer._click.exceptions import ClickException

            if State.debug or isinstance(exc, ClickException):
                raise
            report(exc)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature


def settings_from(ctx: typer.Context, **more: Any) -> Settings:
    """Settings: config file < environment < global flags < this command's flags."""
    from cogmem.config import load_settings

    root = ctx.find_root()
    overrides = dict(root.obj) if isinstance(root.obj, dict) else {}
    overrides.update({k: v for k, v in more.items() if v is not None})
    return load_settings(overrides)


def open_memory(
    ctx: typer.Context,
    group: str | None = None,
    llm: str | None = None,
    *,
    one_search: bool = False,
) -> Memory:
    """The Memory a command works on: settings from the command line, this group and LLM.
    ``one_search``: a command that searches once and exits (search, context, ask) does not
    read the group's copy behind its search (``search_cache = auto`` becomes ``off``): the
    process would end before any search could use it."""
    from cogmem.api import Memory

    settings = settings_from(ctx, group=group, llm=llm)
    if one_search and settings.search_cache == "auto":
        settings = settings.model_copy(update={"search_cache": "off"})
    return Memory(settings)


def print_json(data: Any) -> None:
    """JSON on stdout, never wrapped (scripts read it)."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
    sys.stdout.flush()


def require_question(question: str) -> None:
    """Refuse an empty question before connecting (:class:`~cogmem.api.QuestionError`)."""
    from cogmem.api import check_question

    check_question(question)


def require_as_of(value: str | None) -> datetime | None:
    """``--as-of`` read before connecting; an unreadable time is a one-line error."""
    from cogmem.temporal.as_of import AsOfError, parse_as_of

    try:
        return parse_as_of(value)
    except AsOfError as exc:
        raise fail(f"--as-of: {exc}") from exc


def short(text: str, limit: int = TITLE_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters (with …) for titles."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def close_matches(name: str, names: list[str], limit: int = 3) -> list[str]:
    """Group names like ``name``: the same but for case first, then by edit distance."""
    from rapidfuzz import fuzz, process

    same = [n for n in names if n != name and n.casefold() == name.casefold()]
    scored = process.extract(
        name.casefold(),
        {n: n.casefold() for n in names if n != name and n not in same},
        scorer=fuzz.ratio,
        limit=limit,
        score_cutoff=60,
    )
    return (same + [str(match[2]) for match in scored])[:limit]


def warn_if_empty(mem: Memory) -> None:
    """On stderr: the group holds nothing (unknown or empty), with the close names."""
    if mem.inspect.size()["turns"] > 0:
        return
    names = [str(row["group"]) for row in mem.inspect.groups() if row["turns"]]
    near = close_matches(mem.group, names)
    hint = (
        f"; did you mean {', '.join(repr(n) for n in near)}?"
        if near
        else ("; `cogmem groups` lists the groups" if names else "; nothing is ingested yet")
    )
    err.print(
        f"[yellow]warning:[/] group {escape(repr(mem.group))} holds no turns{escape(hint)}",
        highlight=False,
        soft_wrap=True,
    )
