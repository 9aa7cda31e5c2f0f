"""Question words → a safe Lucene query for the fulltext indexes.

The query is a parameter value, never Cypher: every term is escaped, so a question full of
Lucene or Cypher syntax is just words. The group restriction rides inside Lucene as a
required ``group_key`` token.
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
_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')
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


def escape(term: str) -> str:
    """Escape Lucene's special characters (and the words AND/OR/NOT) in one term."""
    escaped = _SPECIAL.sub(r"\\\1", term)
    if escaped in ("AND", "OR", "NOT"):
        escaped = escaped.lower()
    return escaped


def group_query(
    group_token: str, terms: list[str], boosts: dict[str, float] | None = None
) -> str | None:
    """``+group_key:<token> +(t1 t2^2 …)``, or None when no term is left."""
    parts = []
    for term in terms:
        if not term:
            continue
        boost = (boosts or {}).get(term)
        parts.append(f"{escape(term)}^{boost:g}" if boost and boost != 1 else escape(term))
    if not parts:
        return None
    return f"+group_key:{escape(group_token)} +({' '.join(parts)})"
