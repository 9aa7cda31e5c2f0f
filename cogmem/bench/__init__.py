"""Benchmarks that ship with cogmem.

- :mod:`cogmem.bench.planted` — the controlled "planted facts" retention benchmark
  (after CogCanvas §4): seeded 50-turn conversations with KeyFacts, Decisions, Reminders
  and Insights planted at known turns, causal chains for multi-hop questions, and the
  same token budget for every system (cogmem, truncation, RAG top-3/top-10, and
  summarization when an LLM is configured).
- :mod:`cogmem.bench.collapse` — the semantic-collapse probe (after CogMem): matched pairs
  of a person's own record and another speaker's opinion about the same thing; mean
  cosine of the pairs and the misattribution rate of flat dense retrieval vs cogmem.
- :mod:`cogmem.bench.common` — the machine line, the command line, result files
  (markdown table, JSON, PNG chart) and small shared helpers.

Each benchmark has a generator (pure, seeded, no server), baselines that need only the
embedder, and a ``run_*`` function that talks to Neo4j through :class:`cogmem.api.Memory`
in throwaway ``bench-…`` groups that are deleted at the end.
"""
