"""The controlled "planted facts" benchmark (after CogCanvas §4), rebuilt for cogmem.

A seeded generator writes 50-turn conversations between a user and an assistant about a
software project, a trip, a renovation, a wedding or a thesis. Facts of four types —
KeyFact, Decision, Reminder, Insight — are planted verbatim at known turns (all before the
compression point, turn 40), among varied filler. Two causal chains per conversation (a
KeyFact or Reminder, the Decision it caused, and a later item that decision affected) give
the multi-hop questions: "Why did we …?" (causal) and "What did … affect?" (impact).

Every system gets the same budget of estimated tokens for the context it injects:

- ``cogmem``: ``Memory.context(question, budget)`` after ingesting turns 1..50 into a
  group of its own;
- ``truncation``: the last 5 turns;
- ``rag-top3`` / ``rag-top10``: the conversation cut into 1000-character chunks with a
  200-character overlap, the top-k chunks by cosine under the same embedder, in rank order,
  whole chunks only, until the budget is full;
- ``summarization`` (only when an LLM is configured): an LLM summary of the turns before
  the last 5, then the last 5 turns verbatim.

Scores per planted fact: *recall* (rapidfuzz ``partial_ratio`` of the planted wording
against the context ≥ 80) and *exact match* (the wording verbatim in the context). Per
multi-hop question: *keyword coverage* (fraction of ground-truth keywords in the context)
and *pass* (coverage ≥ 80 %). The context is scored, not an LLM's answer: this measures
what a memory system puts in front of the model.

Layout: ``templates.json`` (the data: domains, slots, facts, chains, filler) and
``templates`` (its shape, loaded and validated), ``generator`` (seeded conversations),
``baselines`` (truncation, RAG, summarization), ``scoring``, ``run`` (:func:`run_planted`
and the report).
"""

from cogmem.bench.planted.baselines import (
    BUDGET_TOKENS,
    CHUNK_CHARS,
    CHUNK_OVERLAP,
    RECENT_TURNS,
    SUMMARY_PROMPT,
    RagIndex,
    chunk_text,
    summarization_context,
    truncation_context,
)
from cogmem.bench.planted.generator import (
    COMPRESSION_TURN,
    TURNS,
    MultiHopQuestion,
    PlantedConversation,
    PlantedFact,
    generate,
    generate_conversation,
)
from cogmem.bench.planted.run import PlantedResult, render_markdown, run_planted
from cogmem.bench.planted.scoring import PASS_COVERAGE, SystemScores, summarise_scores
from cogmem.bench.planted.templates import (
    DOMAINS,
    FACT_TYPES,
    SPEAKERS,
    ChainTemplate,
    Domain,
    FactTemplate,
    FactType,
)

__all__ = [
    "BUDGET_TOKENS",
    "CHUNK_CHARS",
    "CHUNK_OVERLAP",
    "COMPRESSION_TURN",
    "DOMAINS",
    "FACT_TYPES",
    "PASS_COVERAGE",
    "RECENT_TURNS",
    "SPEAKERS",
    "SUMMARY_PROMPT",
    "TURNS",
    "ChainTemplate",
    "Domain",
    "FactTemplate",
    "FactType",
    "MultiHopQuestion",
    "PlantedConversation",
    "PlantedFact",
    "PlantedResult",
    "RagIndex",
    "SystemScores",
    "chunk_text",
    "generate",
    "generate_conversation",
    "render_markdown",
    "run_planted",
    "summarise_scores",
    "summarization_context",
    "truncation_context",
]
