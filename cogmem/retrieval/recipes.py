"""Per-intent search recipes: which operator steps run after Anchor, in which order, over
which relationship types, from how many seeds and how deep — as data.

The controller walks the recipe of a question's intent (:func:`recipe_for`); a step runs
when its seeds exist and its condition holds. Every recipe has the same skeleton — from the
named persons, their shared neighbourhood, then from what Anchor found — and differs in the
relationship types followed and in the steps left out: opinion and update questions skip
the concept and consolidated-fact steps, since their answer is a person's claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cogmem.models import Intent, RecordType, RelType

MAX_STEPS_AFTER_ANCHOR = 5
"""CogMem's cap: at most five operator steps follow Anchor."""
ANCHORED_SEEDS = 5
"""Seeds taken from Anchor's best entries per step: more only widens the pool with noise."""
MIN_ENTITIES_TO_INTERSECT = 2
"""A shared neighbourhood needs two persons."""
NEIGHBOURS_TO_GROUND = 1
"""Turns before and after each grounded turn: the question it answers, the reply it gets."""
HOP = 1
"""One hop: the direct neighbours of a person, concept or fact."""
CAUSE_DEPTH = 2
"""Causes and references chain (a decision caused by a fact supported by an event)."""


class Seeds(StrEnum):
    """Where a traverse step starts."""

    ENTITIES = "entities"  # the persons the question names (all of them, no cap)
    CONCEPTS = "concepts"  # concepts among Anchor's entries
    FACTS = "facts"  # consolidated facts among Anchor's entries
    DECISIONS = "decisions"  # decisions, facts, reminders and insights among Anchor's entries


SEED_TYPES: dict[Seeds, frozenset[RecordType]] = {
    Seeds.CONCEPTS: frozenset({RecordType.CONCEPT}),
    Seeds.DECISIONS: frozenset(
        {RecordType.DECISION, RecordType.FACT, RecordType.REMINDER, RecordType.INSIGHT}
    ),
}
"""Record types of Anchor's entries that seed a step (FACTS: consolidated ones instead)."""


class When(StrEnum):
    """A plan flag a step needs, besides its seeds."""

    ALWAYS = "always"
    BOTH_WANTED = "wants_both"  # "what do X and Y both …"
    CAUSE_WANTED = "wants_cause"  # "why …", "what led to …"


@dataclass(frozen=True)
class Traverse:
    """Follow ``rels`` from the seeds, ``depth`` hops, within the question's time window
    when ``windowed``. ``detail`` is the trace line: ``{names}`` (the persons),
    ``{rels}`` (the list), ``{rel_path}`` (joined by /), ``{n}`` (seeds), ``{window}``."""

    seeds: Seeds
    rels: tuple[RelType, ...]
    detail: str
    depth: int = HOP
    windowed: bool = True
    when: When = When.ALWAYS
    cap: int | None = ANCHORED_SEEDS


@dataclass(frozen=True)
class Intersect:
    """The neighbourhood the named persons share (needs two of them)."""

    detail: str = "shared neighbourhood of {names}"
    when: When = When.ALWAYS


Step = Traverse | Intersect

# -- relationship types per step ---------------------------------------------------------
EVERYDAY_RELS = (
    RelType.PARTICIPATED_IN,
    RelType.HAS_FACT,
    RelType.LIKES,
    RelType.USES,
    RelType.DISLIKES,
    RelType.INVOLVES,
)
"""What a person did, is known for, likes or uses: single-hop and multi-hop answers."""
TEMPORAL_RELS = (RelType.PARTICIPATED_IN, RelType.HAS_FACT, RelType.INVOLVES)
"""Events and facts, which carry times."""
OPINION_RELS = (RelType.CLAIMS,)
"""An opinion is the holder's claim."""
UPDATE_RELS = (RelType.CLAIMS, RelType.HAS_FACT, RelType.SUPERSEDES)
"""The holder's claims and facts, and what replaced what."""
OPEN_RELS = (
    RelType.PARTICIPATED_IN,
    RelType.HAS_FACT,
    RelType.LIKES,
    RelType.USES,
    RelType.DISLIKES,
    RelType.CLAIMS,
)
"""A judgement beyond what was said leans on tastes and views too."""
CONCEPT_RELS = (RelType.INVOLVES, RelType.ABOUT, RelType.TARGETS)
"""From a concept to the events, facts and claims about it."""
SUPPORT_RELS = (RelType.SUPPORTED_BY,)
"""From a consolidated fact down to the events it was made from."""
CAUSE_RELS = (RelType.CAUSES, RelType.REFERENCES, RelType.SUPPORTED_BY)
"""Causal and reference links between artifacts, and what supports them."""

# -- the steps ---------------------------------------------------------------------------
_FROM_CONCEPTS = Traverse(
    Seeds.CONCEPTS, CONCEPT_RELS, "from anchored concepts {n} over {rel_path}"
)
_DOWN_FROM_FACTS = Traverse(
    Seeds.FACTS, SUPPORT_RELS, "down {rel_path} from {n} consolidated facts"
)
_CAUSES = Traverse(
    Seeds.DECISIONS,
    CAUSE_RELS,
    "causes and references of anchored decisions",
    depth=CAUSE_DEPTH,
    windowed=False,  # a cause may precede the asked time
    when=When.CAUSE_WANTED,
)
_SHARED_IF_ASKED = Intersect(when=When.BOTH_WANTED)


def _from_persons(rels: tuple[RelType, ...]) -> Traverse:
    return Traverse(Seeds.ENTITIES, rels, "from {names} over {rels}{window}", cap=None)


RECIPES: dict[Intent, tuple[Step, ...]] = {
    "single-hop": (
        _from_persons(EVERYDAY_RELS),
        _SHARED_IF_ASKED,
        _FROM_CONCEPTS,
        _DOWN_FROM_FACTS,
        _CAUSES,
    ),
    "temporal": (
        _from_persons(TEMPORAL_RELS),
        _SHARED_IF_ASKED,
        _FROM_CONCEPTS,
        _DOWN_FROM_FACTS,
        _CAUSES,
    ),
    # lists across sessions: what the persons share is always worth a look
    "multi-hop": (
        _from_persons(EVERYDAY_RELS),
        Intersect(),
        _FROM_CONCEPTS,
        _DOWN_FROM_FACTS,
        _CAUSES,
    ),
    "opinion": (_from_persons(OPINION_RELS), _SHARED_IF_ASKED, _CAUSES),
    "update": (_from_persons(UPDATE_RELS), _SHARED_IF_ASKED, _CAUSES),
    "open": (
        _from_persons(OPEN_RELS),
        _SHARED_IF_ASKED,
        _FROM_CONCEPTS,
        _DOWN_FROM_FACTS,
        _CAUSES,
    ),
}


def recipe_for(intent: Intent) -> tuple[Step, ...]:
    """The steps for an intent (an unknown one searches like a single-hop question)."""
    return RECIPES.get(intent, RECIPES["single-hop"])
