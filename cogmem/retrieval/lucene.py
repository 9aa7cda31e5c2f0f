"""Question words: the content words of a question that lexical matching uses (the BM25 of
:mod:`cogmem.retrieval.lexical`, the fuzzy match of Anchor and the router). Words are
taken with a plain pattern, so a question full of Lucene or Cypher syntax is just words.
"""

from __future__ import annotations

import re

from cogmem.text import STOPWORDS

QUESTION_WORDS = frozenset(
    """what when where who whom whose which why how does did do is are was were has have had
    can could would should will kind type sort many much long ago often tell describe name
    recently ever""".split()
)
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
MAX_TERMS = 32


def keywords(text: str) -> list[str]:
    """Content words of a question, lowercased, in order, without duplicates."""
    seen: dict[str, None] = {}
    for raw in _TOKEN.findall(text):
        word = raw.lower().replace("’", "'")
        if word.endswith("'s"):
            word = word[:-2]
        if word in STOPWORDS or word in QUESTION_WORDS or len(word) < 2:
            continue
        seen.setdefault(word, None)
    return list(seen)[:MAX_TERMS]
