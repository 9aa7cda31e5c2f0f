"""Option and argument types that several CLI commands share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

GroupOpt = Annotated[
    str | None,
    typer.Option("--group", "-g", help="Memory space (COGMEM_GROUP; default 'default')."),
]
LLMOpt = Annotated[
    str | None,
    typer.Option(
        "--llm",
        help="none (offline: heuristic extractor, rule router, extractive "
        "answers) or openai (any OpenAI-compatible endpoint, COGMEM_LLM_BASE_URL).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON output.")]
PlainJsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
ExplainOpt = Annotated[bool, typer.Option("--explain", help="Show the plan and operator trace.")]
QuestionArg = Annotated[str, typer.Argument(help="The question, in plain words.")]
AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        help="Answer from memory as it stood then: only turns said by then, each record's "
        "status then. An ISO date or time (2024-03-01, 2024-03-01T14:00) or '1 March 2024'; "
        "a date means the end of that day.",
    ),
]
EmbedderPathOpt = Annotated[
    str | None, typer.Option("--embedder-path", help="Local model folder (bge-m3).")
]

# -- neo4j ------------------------------------------------------------------------------
InstanceOpt = Annotated[
    str, typer.Option("--instance", help="Name of the instance folder under $COGMEM_HOME.")
]
DirOpt = Annotated[
    Path | None,
    typer.Option("--dir", help="Use this instance folder instead (e.g. a throwaway test one)."),
]

# -- bench ------------------------------------------------------------------------------
UriOpt = Annotated[
    str | None,
    typer.Option("--uri", help="Bolt URI of the Neo4j to use (default: NEO4J_URI / config)."),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the generated data.")]
OutOpt = Annotated[
    Path, typer.Option("--out", help="Folder for the result files.", file_okay=False)
]
DEFAULT_OUT = Path("benchmarks/results")
