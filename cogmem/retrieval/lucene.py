"""Question words: the content words of a question that lexical matching uses (the BM25 of
:mod:`cogmem.retrieval.lexical`, the fuzzy match of Anchor and the router). Words are
taken with a plain pattern, so a question full of Lucene or Cypher syntax is just words.
:func:`lucene_query` writes them as the fulltext indexes' query, escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from cogmem.ingest.ids import group_key, said_key
from cogmem.text import STOPWORDS

QUESTION_WORDS = frozenset(
    """what when where who whom whose which why how does did do is are was were has have had
    can could would should will kind type sort many much long ago often tell describe name
    recently ever""".split()
)
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
MAX_TERMS = 32
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')


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


def _escape(word: str) -> str:
    return _LUCENE_SPECIAL.sub(r"\\\1", word)


def lucene_query(
    group: str,
    words: Sequence[str],
    fields: Sequence[str],
    said_by: datetime | None = None,
    *,
    day_only: bool = False,
) -> str | None:
    """The Lucene query for ``words`` in ``fields`` of ``group``'s nodes (the group's key
    required but not scored, any word matching), said on or before ``said_by``'s day when
    given (what was said later that day is the statement's to drop), or with ``day_only``
    on that day alone; None without a word."""
    terms = " ".join(_escape(w) for w in words if w)
    if not terms:
        return None
    clauses = " ".join(f"{field}:({terms})" for field in fields)
    # the group's clause scores nothing (^0): it filters. Scored, it would add its own
    # idf to every match, a constant that grows with the other groups' share of the index
    # (+1.7 with 20 look-alike groups) and skews BM25 against the other signals. The day
    # range likewise: the same BM25 scores as a search of now
    said = ""
    if said_by is not None:
        day = said_key(said_by)
        said = f" +said_key:{day}^0" if day_only else f" +said_key:[* TO {day}]^0"
    return f"+group_key:{group_key(group)}^0{said} +({clauses})"
