"""The semantic-collapse probe (after CogMem), rebuilt for cogmem.

Matched pairs: a person's own record ("Dana: I ran the Berlin marathon last week.") and
another speaker's opinion about the same thing ("Eli: Honestly I think Dana's marathon
running is reckless."). The generator spreads the pairs over many small two-person
conversations arranged as chains of acquaintances: in conversation k, person P_k tells
P_{k+1} about their own week, and also passes on opinions about what P_{k-1} told them in
conversation k-1 (P_{k-1} is not in the room, so the opinion names them). Topics, verbs,
times, adjectives and sentiments vary, the listener reacts neutrally and mentions small
things of their own, and every name is unique to the corpus.

Reported:

1. the mean cosine similarity of the pairs under the configured embedder (the two
   sentences alone, and as the turns are indexed: ``"Speaker: text"``);
2. the misattribution rate. For each pair a record question ("What did Dana do last
   week?" or a topic question) and an opinion question ("What does Eli think of Dana's
   marathon running?"). Flat dense retrieval embeds every turn and returns the top-1 by
   cosine; cogmem answers ``Memory.search(q, k=1)``. A record question is misattributed
   when the top-1 is the paired opinion (for cogmem: evidence from the opinion turn, e.g.
   Eli's Claim), an opinion question when the top-1 is the paired record.

Layout: ``templates.json`` (the data: topics, forms, small talk, names) and ``templates``
(its shape, loaded and validated), ``generator`` (the seeded corpus), ``judge`` (flat dense
retrieval and the judging of a top-1 result), ``run`` (:func:`run_collapse` and the report).
"""

from cogmem.bench.collapse.generator import (
    CHAIN_CONVERSATIONS,
    RECORDS_PER_PERSON,
    Corpus,
    Pair,
    ProbeConversation,
    ProbeTurn,
    generate_corpus,
)
from cogmem.bench.collapse.judge import (
    OUTCOMES,
    Asked,
    FlatIndex,
    Outcome,
    judge_cogmem,
    judge_flat,
    pair_cosines,
    rates,
    turn_text,
)
from cogmem.bench.collapse.run import SYSTEMS, CollapseResult, render_markdown, run_collapse
from cogmem.bench.collapse.templates import EVENT_PHRASES, TIMES, TOPICS, Topic

__all__ = [
    "CHAIN_CONVERSATIONS",
    "EVENT_PHRASES",
    "OUTCOMES",
    "RECORDS_PER_PERSON",
    "SYSTEMS",
    "TIMES",
    "TOPICS",
    "Asked",
    "CollapseResult",
    "Corpus",
    "FlatIndex",
    "Outcome",
    "Pair",
    "ProbeConversation",
    "ProbeTurn",
    "Topic",
    "generate_corpus",
    "judge_cogmem",
    "judge_flat",
    "pair_cosines",
    "rates",
    "render_markdown",
    "run_collapse",
    "turn_text",
]
