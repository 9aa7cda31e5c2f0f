"""Rewriting a sentence in the third person: "I" and "my" become the speaker's name, "you"
the addressee's, so a record's content says who did what without its turn."""

from __future__ import annotations

import re

COMMON_VERBS_S = frozenset(
    "love like enjoy think feel want need hope know believe prefer hate dislike play work "
    "live teach study miss wish remember mean plan try make take get keep find see say".split()
)


def third_person(sentence: str, speaker: str, addressee: str | None) -> str:
    """Rewrite first person (and "you", when the addressee is known) to names."""
    s = sentence
    pos = f"{speaker}'s"
    subs: list[tuple[str, str]] = [
        (r"\bIf you ask me\b", f"In {pos} opinion"),
        (r"\bif you ask me\b", f"in {pos} opinion"),
        (r"\bI'm\b|\bI am\b", f"{speaker} is"),
        (r"\bI've\b", f"{speaker} has"),
        (r"\bI'll\b", f"{speaker} will"),
        (r"\bI'd\b", f"{speaker} would"),
        (r"\bI was\b", f"{speaker} was"),
        (r"\bI have\b", f"{speaker} has"),
        (r"\bI do\b", f"{speaker} does"),
        (r"\bI\s+(" + "|".join(sorted(COMMON_VERBS_S)) + r")\b", f"{speaker} \\1s"),
        (r"\bI\b", speaker),
        (r"\b[Mm]yself\b", speaker),
        (r"\b[Mm]y\b", pos),
        (r"\b[Mm]ine\b", pos),
        (r"(?<![A-Za-z'])me\b", speaker),
    ]
    if addressee:
        subs += [
            (r"\b[Yy]ou're\b|\b[Yy]ou are\b", f"{addressee} is"),
            (r"\b[Yy]ou've\b", f"{addressee} has"),
            (r"\b[Yy]ou'll\b", f"{addressee} will"),
            (r"\b[Yy]ou were\b", f"{addressee} was"),
            (r"\b[Yy]ourself\b", addressee),
            (r"\b[Yy]our\b", f"{addressee}'s"),
            (r"\b[Yy]ou\b", addressee),
        ]
    for pattern, repl in subs:
        s = re.sub(pattern, repl, s)
    return s.strip()
