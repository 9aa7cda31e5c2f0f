"""Dense recall of MiniLM fitted to the dev questions, leave one conversation out (no database).

Results and what they meant for cogmem: ``benchmarks/results/tried_fit_embedder.md``.
Nothing here is in the package. Two fits, each on the question → evidence-turn pairs of
four dev conversations and scored on the fifth, every turn embedded as the ``dense``
baseline embeds it (``speaker: text``):

* ``finetune``: all of MiniLM's weights (in-batch negatives, pairs that share a question
  or a turn masked; 2 epochs, lr 2e-5, batch 32, scale 20, set before any figure was read);
  ``--save DIR`` keeps each fold's model as ``DIR/<held-out id>`` (a folder that
  ``COGMEM_EMBEDDER_PATH`` loads as ``minilm``).
* ``query-map``: a linear map W on the question's vector only (``normalise(q @ W)``, W from
  the identity), the turns' vectors left as they are: a softmax over every turn of the
  question's own conversation, its evidence turns the targets (Adam, lr 1e-3, batch 32,
  ``--epochs``); ``--save DIR`` keeps each fold's ``DIR/W-<held-out id>.npy``.

Needs torch and sentence-transformers (not among cogmem's dependencies)::

    python benchmarks/tried_fit_embedder.py finetune ../shared/data/locomo-dev.json \
        ../shared/data/realtalk-dev.json --save /tmp/ft/models
    python benchmarks/tried_fit_embedder.py query-map ../shared/data/locomo-dev.json \
        ../shared/data/realtalk-dev.json --epochs 5 --save /tmp/ft
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

from cogmem.bench.locomo import EvidenceStats, Question, load_questions, score
from cogmem.embed.minilm import minilm_model_dir
from cogmem.ingest.readers import read_file

SEED = 13
SCALE = 20.0
BATCH = 32

Ranking = list[tuple[Question, list[str]]]


class Dev:
    """The dev conversations' turns (``speaker: text``) and scored questions."""

    def __init__(self, paths: list[Path]) -> None:
        self.texts: dict[str, dict[str, str]] = {}
        self.questions: list[Question] = []
        for path in paths:
            read = read_file(path, "locomo")
            for conv in read.conversations:
                self.texts[conv.id] = {
                    t.source_id: f"{t.speaker}: {t.full_text}" for t in conv.turns
                }
            stats = EvidenceStats()
            self.questions += load_questions(path, read.conversations, {1, 2, 3, 4}, stats)

    def asked_in(self, conv: str) -> list[Question]:
        return [q for q in self.questions if q.conversation == conv]

    def pairs_without(self, held: str) -> list[tuple[str, str]]:
        return [
            (q.question, self.texts[q.conversation][e])
            for q in self.questions
            if q.conversation != held
            for e in q.evidence
        ]


def ranked(dev: Dev, conv: str, turns: np.ndarray, asked: np.ndarray) -> Ranking:
    ids = list(dev.texts[conv])
    out = []
    for q, v in zip(dev.asked_in(conv), asked, strict=True):
        order = np.argsort(-(turns @ v), kind="stable")[:25]
        out.append((q, [ids[i] for i in order]))
    return out


def encode(model: SentenceTransformer, texts: list[str]) -> np.ndarray:
    with torch.no_grad():
        return np.asarray(model.encode(texts, batch_size=64, normalize_embeddings=True))


def dense(dev: Dev, model: SentenceTransformer, conv: str) -> Ranking:
    turns = encode(model, list(dev.texts[conv].values()))
    return ranked(dev, conv, turns, encode(model, [q.question for q in dev.asked_in(conv)]))


def finetune(dev: Dev, held: str, epochs: int) -> SentenceTransformer:
    random.seed(SEED)
    torch.manual_seed(SEED)
    model = SentenceTransformer(str(minilm_model_dir()), device="cpu")
    pairs = dev.pairs_without(held)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    steps = epochs * -(-len(pairs) // BATCH)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / steps)
    )
    model.train()
    for _ in range(epochs):
        random.shuffle(pairs)
        for start in range(0, len(pairs), BATCH):
            batch = pairs[start : start + BATCH]
            q = model(model.tokenize([a for a, _ in batch]))["sentence_embedding"]
            p = model(model.tokenize([b for _, b in batch]))["sentence_embedding"]
            sims = (
                SCALE
                * torch.nn.functional.normalize(q, dim=-1)
                @ (torch.nn.functional.normalize(p, dim=-1).T)
            )
            n = len(batch)
            shared = torch.tensor(
                [[a[0] == b[0] or a[1] == b[1] for b in batch] for a in batch]
            ) & ~torch.eye(n, dtype=torch.bool)
            logits = sims.masked_fill(shared, -1e4)
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(n))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    model.eval()
    return model


def query_map(
    dev: Dev, held: str, turns: dict[str, torch.Tensor], asked: torch.Tensor, epochs: int
) -> torch.Tensor:
    index = {c: {tid: i for i, tid in enumerate(t)} for c, t in dev.texts.items()}
    w = torch.nn.Parameter(torch.eye(asked.shape[1]))
    opt = torch.optim.Adam([w], lr=1e-3)
    train = [i for i, q in enumerate(dev.questions) if q.conversation != held and q.evidence]
    gen = torch.Generator().manual_seed(SEED)
    for _ in range(epochs):
        order = [train[int(i)] for i in torch.randperm(len(train), generator=gen)]
        for start in range(0, len(order), BATCH):
            loss: Any = 0.0
            for i in order[start : start + BATCH]:
                q = dev.questions[i]
                mapped = torch.nn.functional.normalize(asked[i] @ w, dim=-1)
                logits = SCALE * (turns[q.conversation] @ mapped)
                targets = [index[q.conversation][e] for e in q.evidence]
                loss = loss + (torch.logsumexp(logits, 0) - logits[targets]).mean()
            opt.zero_grad()
            (loss / BATCH).backward()
            opt.step()
    return w.detach()


def report(name: str, rankings: Ranking) -> None:
    for label, prefix in (("LoCoMo dev", "conv-"), ("REALTALK dev", "realtalk-")):
        s = score([r for r in rankings if r[0].conversation.startswith(prefix)])
        print(f"{name:10s} {label:12s} R@10 {s.recall[0][10]:5.1f}  R@25 {s.recall[0][25]:5.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fit", choices=["finetune", "query-map"])
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--epochs", type=int, default=None, help="finetune 2, query-map 5")
    parser.add_argument("--save", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(2)
    dev = Dev(args.paths)
    base = SentenceTransformer(str(minilm_model_dir()), device="cpu")
    before: Ranking = []
    after: Ranking = []
    if args.fit == "query-map":
        turns = {c: torch.tensor(encode(base, list(t.values()))) for c, t in dev.texts.items()}
        asked = torch.tensor(encode(base, [q.question for q in dev.questions]))
    for held in dev.texts:
        started = time.perf_counter()
        if args.fit == "finetune":
            model = finetune(dev, held, args.epochs or 2)
            mine = dense(dev, model, held)
            theirs = dense(dev, base, held)
            if args.save:
                model.save(str(args.save / held))
        else:
            w = query_map(dev, held, turns, asked, args.epochs or 5)
            rows = [i for i, q in enumerate(dev.questions) if q.conversation == held]
            mapped = torch.nn.functional.normalize(asked[rows] @ w, dim=-1)
            mine = ranked(dev, held, turns[held].numpy(), mapped.numpy())
            # MiniLM's own ranking from the vectors the map was fitted over, not encoded again
            theirs = ranked(dev, held, turns[held].numpy(), asked[rows].numpy())
            if args.save:
                np.save(args.save / f"W-{held}.npy", w.numpy())
        print(
            f"{held}: MiniLM R@10 {score(theirs).recall[0][10]:.1f}, fitted on the other four "
            f"{score(mine).recall[0][10]:.1f} ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        before += theirs
        after += mine
    report("MiniLM", before)
    report(args.fit, after)


if __name__ == "__main__":
    main()
