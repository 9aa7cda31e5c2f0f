"""Sentence and word spans of a text, kept exact so that quotes can be checked.

Sentence boundaries come from BlingFire (Microsoft's tokenizer, the ``blingfire`` package:
a compiled model, no download), one line at a time: it keeps "Dr. Okafor", "7 p.m.",
"Washington D.C." and "1.50" whole, where the regular expression it replaced cut a sentence
at every full stop (and dropped a line that ended without one before a line break). On the
dev chats it changes 44 of REALTALK's 4,221 messages and 2 of LoCoMo's 1,108. Checked
beside it: pysbd (splits "ok..." into "ok.." and ". ", joins "sleepy!!! Coffee …"; ~0.5 ms a
message against BlingFire's ~40 µs). BlingFire is MIT-licensed; its wheel installs ~99 MB,
most of it tokenizer models cogmem does not load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import blingfire

LINE = re.compile(r"[^\n]+")
WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


def sentences(text: str) -> list[Span]:
    """Sentence spans of ``text``; each span's text is exactly ``text[start:end]``. A line
    break always ends a sentence; a span without a letter or digit is left out."""
    spans = []
    for line in LINE.finditer(text):
        chunk = line.group(0)
        if not chunk.strip():
            continue
        _, offsets = blingfire.text_to_sentences_and_offsets(chunk)
        for begin, end in offsets:  # character offsets into the line
            raw = chunk[begin:end]
            body = raw.strip()
            if len(body) < 2 or not any(ch.isalnum() for ch in body):
                continue
            start = line.start() + begin + len(raw) - len(raw.lstrip())
            spans.append(Span(start, start + len(body), body))
    return spans
