"""Sentence and word spans of a text, kept exact so that quotes can be checked."""

from __future__ import annotations

import re
from dataclasses import dataclass

SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+[\"')\]]*|$)")
WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


def sentences(text: str) -> list[Span]:
    """Sentence spans of ``text``; each span's text is exactly ``text[start:end]``."""
    spans = []
    for m in SENTENCE.finditer(text):
        raw = m.group(0)
        lead = len(raw) - len(raw.lstrip())
        body = raw.strip()
        if len(body) < 2 or not any(ch.isalnum() for ch in body):
            continue
        start = m.start() + lead
        spans.append(Span(start, start + len(body), body))
    return spans
