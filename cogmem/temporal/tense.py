"""Tense: a cheap guess whether a text talks about the past, present or future."""

from __future__ import annotations

import re
from typing import Literal

Tense = Literal["past", "present", "future"]

_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_FUTURE_WORDS = frozenset({"shall", "gonna", "tomorrow", "upcoming", "soon", "tonight", "someday"})
# modal cues: an obligation or a possibility is about what is still to come
_MODAL_WORDS = frozenset({"must", "should", "gotta", "hafta"})
_MODAL_BEFORE_TO = frozenset({"have", "has", "need", "needs", "ought"})
# present simple of these verbs after a subject names a scheduled event ("we fly out on
# Friday", "the course starts in May")
_SCHEDULE_VERBS = frozenset(
    {"fly", "flies", "leave", "leaves", "start", "starts", "begin", "begins", "arrive",
     "arrives", "depart", "departs", "land", "lands", "return", "returns", "open", "opens",
     "move", "moves", "head", "heads", "travel", "travels", "go", "goes", "come", "comes",
     "meet", "meets", "visit", "visits", "play", "plays", "finish", "finishes", "end", "ends"}
)  # fmt: skip
_SUBJECTS = frozenset(
    {"i", "we", "you", "they", "he", "she", "it", "flight", "train", "plane", "bus",
     "course", "class", "term", "semester", "show", "concert", "conference", "party",
     "wedding", "trip", "festival", "match", "game", "tour", "exam", "school"}
)  # fmt: skip
_BE_PRESENT = frozenset({"am", "is", "are", "i'm", "you're", "we're", "they're", "he's", "she's"})
# "I'm painting right now" is the present; without such a word a progressive with a date
# is an arrangement ("Clara and I are spending a week in Lisbon")
_NOW_WORDS = frozenset({"now", "currently", "nowadays", "still", "usually", "always"})
_ING_ADJECTIVES = frozenset(
    {"amazing", "interesting", "exciting", "boring", "relaxing", "charming", "stunning",
     "inspiring", "refreshing", "annoying", "frustrating", "surprising", "touching",
     "thrilling", "rewarding", "challenging", "fascinating", "encouraging", "overwhelming",
     "satisfying", "calming", "disappointing", "confusing", "embarrassing", "terrifying",
     "heartwarming", "welcoming", "loving", "caring", "outgoing", "understanding",
     "promising", "willing", "nothing", "something", "anything", "everything", "being",
     "missing", "trying", "tiring", "exhausting", "worrying", "amusing", "living", "during"}
)  # fmt: skip
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
    past = future = present = arranged = 0
    now = False
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
        elif (
            (tok in _FUTURE_BEFORE_TO and nxt == "to")
            or tok in _MODAL_WORDS
            or (tok in _MODAL_BEFORE_TO and nxt == "to")
            or (tok in _SCHEDULE_VERBS and prev in _SUBJECTS)
        ):
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
        elif (
            tok.endswith("ing")
            and prev in _BE_PRESENT
            and len(tok) > 5
            and tok not in _ING_ADJECTIVES
        ):
            arranged += 1
        now = now or tok in _NOW_WORDS
        prev = tok
    if not now:
        future += arranged
    if past > future:
        return "past"
    if future > past:
        return "future"
    if past == 0 and present:
        return "present"
    return None
