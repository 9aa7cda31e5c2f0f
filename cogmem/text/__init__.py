"""Text helpers shared by extraction, answers, consolidation and the baselines:
sentence spans, stopwords, and the sentiment word lists."""

from __future__ import annotations

from cogmem.text.lexicon import NEGATIVE, POSITIVE, word_set
from cogmem.text.sentences import WORD, Span, sentences
from cogmem.text.stems import content_stems, stem, topic_stems
from cogmem.text.stopwords import STOPWORDS

__all__ = [
    "NEGATIVE",
    "POSITIVE",
    "STOPWORDS",
    "WORD",
    "Span",
    "content_stems",
    "sentences",
    "stem",
    "topic_stems",
    "word_set",
]
