"""Tense: a cheap guess whether a text talks about the past, present or future."""

from __future__ import annotations

import re
from typing import Literal

Tense = Literal["past", "present", "future"]

_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_FUTURE_WORDS = frozenset({"shall", "gonna", "tomorrow", "upcoming", "soon", "tonight", "someday"})
_FUTURE_BEFORE_TO = frozenset(
    {"plan", "plans", "planning", "intend", "intends", "intending", "hope", "hoping",
     "want", "wants", "wanna", "about", "aim", "aiming", "excited", "ready"}
)  # fmt: skip
_PAST_WORDS = frozenset(
    {"was", "were", "did", "had", "ago", "yesterday", "last", "went", "came", "saw", "made",
     "took", "gave", "told", "said", "found", "felt", "thought", "bought", "brought", "met",
     "ran", "ate", "wrote", "left", "began", "kept", "spent", "won", "sent", "heard", "knew",
     "held", "stood", "sat", "slept", "drove", "flew", "swam", "sang", "taught", "caught",
     "fought", "built", "paid", "became", "chose", "broke", "forgot", "understood", "grew",
     "threw", "drew", "rode", "wore", "woke", "got", "didn't", "wasn't", "weren't", "hadn't",
     "haven't", "hasn't", "used", "been"}
)  # fmt: skip
_PRESENT_WORDS = frozenset(
    {"am", "is", "are", "i'm", "you're", "we're", "they're", "now", "currently", "nowadays",
     "today", "these", "usually", "always"}
)  # fmt: skip
# words before an -ed word that make it an adjective ("I'm so excited")
_ADJECTIVE_CUES = frozenset(
    {"am", "is", "are", "i'm", "you're", "we're", "they're", "he's", "she's", "it's", "be",
     "being", "so", "very", "really", "too", "feel", "feels", "feeling", "get", "gets",
     "getting", "seem", "seems", "look", "looks", "more", "most", "quite", "pretty", "super",
     "kinda", "a", "an", "the", "my", "your", "our"}
)  # fmt: skip
_NOT_PAST_ED = frozenset(
    {"need", "indeed", "speed", "seed", "feed", "bed", "red", "shed", "hundred", "sacred",
     "naked", "wicked", "proceed", "exceed", "succeed", "breed", "greed", "weed", "deed",
     "embed", "bleed", "kindred", "rugged", "beloved", "talented", "excited", "interested",
     "tired", "scared", "worried", "bored", "thrilled", "pleased", "stressed", "inspired",
     "motivated", "amazed", "blessed", "overwhelmed", "married", "supposed", "based",
     "related", "detailed", "advanced", "limited", "called", "named"}
)  # fmt: skip


def infer_tense(text: str) -> Tense | None:
    """A cheap guess at whether ``text`` talks about the past, present or future.

    Scores auxiliaries and markers ("will", "going to", "plan to", "next" for the future;
    "was", "did", "went", "ago", "last", "-ed" verbs for the past). None on a tie or when
    nothing tells.
    """
    tokens = _TOKEN.findall(text.replace("\u2019", "'"))
    past = future = present = 0
    prev = ""
    for i, raw in enumerate(tokens):
        tok = raw.lower()
        nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        if tok == "will":
            if raw == "will" or i == 0:  # not "I'm Will"
                future += 2
        elif (
            tok.endswith("'ll")
            or tok in _FUTURE_WORDS
            or (tok == "going" and nxt == "to" and prev not in ("was", "were"))
        ):
            future += 2
        elif tok in _FUTURE_BEFORE_TO and nxt == "to":
            future += 1
        elif tok == "next":
            if nxt != "to":
                future += 2
        elif (tok, nxt) in (("can't", "wait"), ("looking", "forward"), ("see", "you")):
            future += 2
        elif tok in _PAST_WORDS:
            past += 2
        elif tok.endswith("'ve") or tok in ("have", "has"):
            past += 1 if nxt.endswith("ed") or nxt in _PAST_WORDS else 0
        elif (
            len(tok) > 4
            and tok.endswith("ed")
            and tok not in _NOT_PAST_ED
            and prev not in _ADJECTIVE_CUES
        ):
            past += 1
        elif tok in _PRESENT_WORDS:
            present += 1
        prev = tok
    if past > future:
        return "past"
    if future > past:
        return "future"
    if past == 0 and present:
        return "present"
    return None
