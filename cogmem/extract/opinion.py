"""Opinion cues for the heuristic extractor: who a sentence judges (a name or a pronoun), the
word that judges them, and the rewrite of a pronoun into the name it refers to."""

from __future__ import annotations

import re

from cogmem.extract.lexicon import (
    INTENSIFIERS,
    OPINION_CUES,
    OPINION_NEGATIVE,
    OPINION_POSITIVE,
    PERSON_PRONOUNS,
    VERBISH,
)
from cogmem.text import NEGATIVE, POSITIVE, STOPWORDS

OPINION_CUE = re.compile("|".join(OPINION_CUES), re.IGNORECASE)
GOOD = POSITIVE | OPINION_POSITIVE
BAD = NEGATIVE | OPINION_NEGATIVE
PRONOUN = re.compile(
    r"\b(?:"
    + "|".join(sorted((re.escape(p) for p in PERSON_PRONOUNS), key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)
COPULA = r"(?:is|was|'s|seems|seemed|looks|sounds|sounded|has been|are|were|'re)"
INTENSE = r"(?:" + "|".join(sorted(INTENSIFIERS)) + r")"
_TRAIT = r"(?:" + "|".join(sorted(OPINION_POSITIVE | OPINION_NEGATIVE)) + r")"
#: A capitalised word judged with a trait only a person has ("I find Marlene rather rude",
#: "Marlene is so generous"): a person, even before anything else names them.
JUDGED_PERSON = re.compile(
    rf"(?:(?<=\bfind )|(?<=\bfound )|(?<=\bconsider ))(?P<obj>[A-Z][a-z]{{2,}})"
    rf"(?=(?:\s+{INTENSE})*\s+{_TRAIT}\b)"
    rf"|(?:^|(?<=[.!?] ))(?P<subj>[A-Z][a-z]{{2,}})(?=\s+{COPULA}(?:\s+{INTENSE})*\s+{_TRAIT}\b)"
)


def judges(who: str, s: str) -> re.Match[str] | None:
    """Whether ``s`` evaluates ``who`` (a name or a pronoun): "I think who is …", "who is so
    …", "I find who …", "proud of who", "wrong about who"."""
    w = re.escape(who)
    return re.search(
        rf"\b(?:think|believe|feel like|guess|find|found|consider)\s+{w}\b"
        rf"|\b{w}\s+{COPULA}\b|\b{w}(?:'s\s+\w+|\s+\w+ing)\b"
        rf"|\b(?:of|about|with|by)\s+{w}\b",
        s,
        re.IGNORECASE,
    )


#: Words after a name that still judge the person ("Marco's being lazy", "Ana getting
#: so bossy", "you doing so well"), not something they did.
_WHOLE = frozenset("being been getting acting behaving looking seeming sounding doing".split())


def judged_doing(who: str, s: str) -> str | None:
    """What of ``who`` the sentence judges when it is a doing or a thing of theirs, not the
    person: "selling" in "I think Emre selling his piano was a mistake", "motorcycle" in
    "Bea's new motorcycle is a waste"; None when ``who`` is judged as a whole ("Emre is
    kind", "I find Emre clever")."""
    w = re.escape(who)
    if re.search(rf"\b{w}\s+{COPULA}\b|\b(?:find|found|consider)\s+{w}\b", s, re.IGNORECASE):
        return None
    m = re.search(rf"\b{w}(?:'s((?:\s+[A-Za-z][\w-]*){{1,3}})|\s+([a-z]\w*ing)\b)", s)
    if m is None:
        return None
    if m.group(2):
        word = m.group(2).lower()
        return None if word in _WHOLE else word
    words = m.group(1).lower().split()
    if words[0] in _WHOLE:
        return None
    phrase: list[str] = []  # "new motorcycle" of "Bea's new motorcycle is …": its head
    for word in words:
        if word in STOPWORDS:
            break
        phrase.append(word)
    return phrase[-1] if phrase else None


def verdict_of(who: str, s: str) -> str | None:
    """The word that evaluates ``who``: "clever" in "I find Ana rather clever", "lazy" in
    "Ana is so lazy"."""
    w = re.escape(who)
    tail = rf"(?:\s+{INTENSE})*\s+(?:a\s+|an\s+)?(?P<verdict>[a-z][a-z\-]+)"
    m = re.search(rf"\b(?:find|found|consider)\s+{w}{tail}", s, re.IGNORECASE) or re.search(
        rf"\b{w}\s+{COPULA}{tail}", s, re.IGNORECASE
    )
    if m is None:
        return None
    word = m.group("verdict").lower()
    if word in STOPWORDS or word in VERBISH or word.endswith("ing"):
        return None
    return word


def with_name(content: str, pronoun: str, name: str) -> str:
    """``content`` with the first ``pronoun`` replaced by ``name`` ("she is" → "Rita is")."""
    low = pronoun.lower()
    if low in ("they", "they're"):
        out = re.sub(r"\b[Tt]hey(?:'re| are)\b", f"{name} is", content, count=1)
        if out != content:
            return out
    if low in ("he's", "she's"):
        return re.sub(rf"\b{re.escape(pronoun)}\b", f"{name} is", content, count=1)
    return re.sub(rf"\b{re.escape(pronoun)}\b", name, content, count=1)


FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself|we|us|our|ours)\b", re.IGNORECASE)
#: Asides that say "us" or "me" without the speaker taking part in anything.
ASIDE = re.compile(
    r"\bbetween (?:us|ourselves|you and me)\b|\blet me (?:say|tell you)\b",
    re.IGNORECASE,
)


def hearsay(s: str, target: str, speaker: str) -> bool:
    """Whether ``s``, which judges ``target``, tells of the target's doing and not the
    speaker's: ``target`` is another person and, once the opinion cue is taken out, no first
    person is left ("I think Bea buying a motorbike on Sunday was a waste" is Bea's Sunday,
    not the speaker's; "Hey John, last weekend I had a great time" is the speaker's)."""
    if not target[:1].isupper() or target == speaker:
        return False
    return FIRST_PERSON.search(ASIDE.sub(" ", OPINION_CUE.sub(" ", s))) is None
