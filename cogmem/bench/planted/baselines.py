"""The baselines every system is compared with: truncation, naive RAG over fixed-size chunks
and (with an LLM) a running summary, all under the same token budget."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cogmem.answer import estimate_tokens
from cogmem.bench.common import fit_budget
from cogmem.bench.planted.generator import PlantedConversation

RECENT_TURNS = 5
CHUNK_CHARS = 1000
CHUNK_OVERLAP = 200
BUDGET_TOKENS = 2000


def truncation_context(conv: PlantedConversation, last: int = RECENT_TURNS) -> str:
    """What a context window that keeps only the last ``last`` turns still holds."""
    first = max(1, len(conv.turns) - last + 1)
    return conv.transcript(first, len(conv.turns))


def chunk_text(text: str, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[str]:
    """Naive fixed-size character chunks with overlapping windows (the last one may be
    shorter); every character of ``text`` is in at least one chunk."""
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError("need size > 0 and 0 <= overlap < size")
    if not text:
        return []
    step = size - overlap
    chunks = []
    for start in range(0, len(text), step):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks


class RagIndex:
    """Chunks of one conversation, embedded once; top-k by cosine for a question."""

    def __init__(self, text: str, embedder: Any, size: int = CHUNK_CHARS, overlap: int = 200):
        self.chunks = chunk_text(text, size, overlap)
        self.embedder = embedder
        self.vectors = (
            np.asarray(embedder.embed(self.chunks), dtype=np.float32)
            if self.chunks
            else np.zeros((0, 1), dtype=np.float32)
        )

    def top(self, question: str, k: int) -> list[str]:
        if not self.chunks:
            return []
        q = np.asarray(self.embedder.embed_query(question), dtype=np.float32)
        scores = self.vectors @ q
        order = np.argsort(-scores, kind="stable")[:k]
        return [self.chunks[i] for i in order]

    def context(self, question: str, k: int, budget_tokens: int) -> str:
        return fit_budget(self.top(question, k), budget_tokens)


SUMMARY_PROMPT = (
    "You compress the history of a conversation between a user and an assistant so that the "
    "conversation can continue in a smaller context window. Write a concise summary of what "
    "matters for continuing it: facts, decisions, constraints and insights. Plain prose, "
    "no preamble."
)


def summarization_context(
    conv: PlantedConversation,
    summarize: Callable[[str, str], str],
    budget_tokens: int = BUDGET_TOKENS,
    last: int = RECENT_TURNS,
) -> str:
    """An LLM summary of everything before the last ``last`` turns, then those turns."""
    recent = truncation_context(conv, last)
    room = max(50, budget_tokens - estimate_tokens(recent) - 20)
    history = conv.transcript(1, len(conv.turns) - last)
    summary = summarize(
        SUMMARY_PROMPT + f" Use at most {int(room * 0.7)} words.",
        history,
    ).strip()
    summary_block = fit_budget([f"Summary of earlier conversation: {summary}"], room)
    if not summary_block:  # an over-long summary is cut to the budget, word by word
        words = summary.split()
        while words and estimate_tokens(" ".join(words)) > room - 10:
            words = words[: int(len(words) * 0.9)]
        summary_block = "Summary of earlier conversation: " + " ".join(words)
    return f"{summary_block}\n\n{recent}"
