"""Where a plan stands, from a sentence's tense and modality: planned, done or cancelled.

"I need to renew my passport before the trip" is a plan; "I finally renewed it three days
ago" is the plan done; "I'm not going to run the half marathon anymore" and "we called off
the Cornwall trip" call a plan off. Any extractor's Events and Todos get their status here
(:func:`plan_status`), and a later turn that completes or cancels an earlier plan of the
same person, with a word of it in common, is linked to it (:func:`completes`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cogmem.models import PlanStatus, RecordType
from cogmem.text import topic_stems

CANCELLED_CUE = re.compile(
    r"\b(?:cancel(?:l)?ed|cancel(?:l)?ing|called off|calling off|call(?:ed)? it off|"
    r"scrapped|gave up on|given up on|pulled out of|dropped out of|backed out of|"
    r"no longer (?:going|planning|doing|taking|running|coming|moving|getting))\b"
    r"|\b(?:not|n't|never)\b[^.!?;]*\b(?:anymore|any more|after all)\b",
    re.IGNORECASE,
)
"""Words that call a plan off ("called off", "not going to … anymore")."""
PLANNED_CUE = re.compile(
    r"\b(?:need(?:s)? to|have to|has to|got to|gotta|must|should|plan(?:s|ning)? to|"
    r"going to|gonna|intend(?:s|ing)? to|hope to|hoping to|want(?:s)? to|will|'ll|"
    r"about to|thinking of|thinking about|can't wait to|looking forward to)\b",
    re.IGNORECASE,
)
"""Modality and the future: something still to come."""
DONE_CUE = re.compile(
    r"\b(?:finally|already|just|managed to|got (?:it|them|that) done|done|finished|"
    r"completed)\b",
    re.IGNORECASE,
)
"""Words that tell a thing is done, with a past tense ("I finally renewed it")."""


def plan_status(
    text: str, tense: str | None, rtype: RecordType = RecordType.EVENT
) -> PlanStatus | None:
    """The status of the plan or event a sentence tells, or None when it tells none.

    Called off beats everything; then a plan (a Todo is one by nature, an Event when its
    sentence speaks of the future or of an obligation); then done (the past tense). A
    question tells none: "How did the race go?" asks whether it happened."""
    if text.rstrip().endswith("?"):
        return None
    if CANCELLED_CUE.search(text):
        return "CANCELLED"
    if rtype is RecordType.TODO:
        return "DONE" if tense == "past" and DONE_CUE.search(text) else "PLANNED"
    if tense == "future" or (tense != "past" and PLANNED_CUE.search(text)):
        return "PLANNED"
    if tense == "past":
        return "DONE"
    return None


def completes(
    later: str,
    plans: Iterable[tuple[str, frozenset[str]]],
    ignore: frozenset[str] = frozenset(),
) -> str | None:
    """Of the earlier ``plans`` (id, the :func:`~cogmem.text.topic_stems` of its quote),
    oldest first, the latest that the ``later`` sentence (done or cancelled) speaks of: the
    one sharing a word with it, not counting the ``ignore`` stems (the names of whose plan
    it is: shared by every record of that person)."""
    words = topic_stems(later) - ignore
    found = None
    for plan_id, stems in plans:
        if words & stems:
            found = plan_id
    return found
