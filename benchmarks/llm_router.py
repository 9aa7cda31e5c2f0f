"""Intent-router accuracy on LoCoMo dev questions: the LLM router (a real local model) beside
the rule router.

Each LoCoMo category has the intent cogmem's recipes serve it with: 1 multi-hop →
``multi-hop``, 2 temporal → ``temporal``, 3 open-domain (inference: "Would Caroline …?") →
``open``, 4 single-hop → ``single-hop``; category 5 (adversarial) has no intent and is left
out. A router is right when its plan's intent is the category's. Questions are a fixed
stratified sample: up to --per-category of each category from each conversation (seeded).
The persons known to the router are the conversation's two speakers.

``LLMRouter`` is measured as cogmem runs it: a failed or unusable LLM answer falls back to
the rule router; the report also gives the LLM's own accuracy on the questions it answered.

    .venv/bin/python benchmarks/llm_router.py /work/shared/data/locomo-dev.json \\
        --model smollm2-135m --out benchmarks/results/llm_router

It starts llama-cpp-python's server over the verified packaged model (or uses --base-url).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from cogmem.clients import make_llm
from cogmem.config import load_settings
from cogmem.local_llm import LocalLLMServer, find_model, verify
from cogmem.retrieval.router import EntityRef, LLMRouter, RuleRouter

INTENT_OF_CATEGORY = {1: "multi-hop", 2: "temporal", 3: "open", 4: "single-hop"}


class Item(BaseModel):
    conversation: str
    category: int
    question: str
    expected: str
    rules: str = ""
    llm: str = ""
    llm_router: str = ""  # "llm" or "rules" (the fallback answered)
    llm_seconds: float = 0.0


def sample(data: list[dict[str, Any]], per_category: int, seed: int) -> list[Item]:
    rng = random.Random(seed)
    items: list[Item] = []
    for conv in data:
        by_category: dict[int, list[str]] = defaultdict(list)
        for qa in conv["qa"]:
            category = int(qa.get("category", 0))
            if category in INTENT_OF_CATEGORY and qa.get("question"):
                by_category[category].append(str(qa["question"]))
        for category in sorted(by_category):
            questions = by_category[category]
            chosen = rng.sample(questions, min(per_category, len(questions)))
            items += [
                Item(
                    conversation=conv["sample_id"],
                    category=category,
                    question=q,
                    expected=INTENT_OF_CATEGORY[category],
                )
                for q in chosen
            ]
    return items


def accuracy(items: list[Item], field: str) -> float:
    return sum(getattr(i, field) == i.expected for i in items) / len(items) if items else 0.0


def summarise(items: list[Item]) -> dict[str, Any]:
    def block(subset: list[Item]) -> dict[str, Any]:
        answered = [i for i in subset if i.llm_router == "llm"]
        return {
            "questions": len(subset),
            "rules": round(accuracy(subset, "rules"), 3),
            "llm_router": round(accuracy(subset, "llm"), 3),
            "llm_answered": len(answered),
            "llm_own": round(accuracy(answered, "llm"), 3),
        }

    report: dict[str, Any] = {"overall": block(items)}
    for conv in sorted({i.conversation for i in items}):
        report[conv] = block([i for i in items if i.conversation == conv])
    for category in sorted(INTENT_OF_CATEGORY):
        report[f"category {category}"] = block([i for i in items if i.category == category])
    report["confusion_rules"] = dict(Counter(f"{i.expected}->{i.rules}" for i in items))
    report["confusion_llm"] = dict(Counter(f"{i.expected}->{i.llm}" for i in items))
    return report


def run(items: list[Item], base_url: str, model: str, data: list[dict[str, Any]]) -> None:
    settings = load_settings(
        {
            "llm": "openai",
            "llm_base_url": base_url,
            "llm_model": model,
            "llm_max_retries": 1,
            "llm_timeout_s": 120.0,
            # a route is a small JSON object; a 135M model that misses the format may
            # otherwise write until its context is full (minutes on 2 cores)
            "llm_max_tokens": 160,
        }
    )
    client = make_llm(settings)
    assert client is not None
    persons = {
        conv["sample_id"]: [
            EntityRef(name=conv["conversation"]["speaker_a"]),
            EntityRef(name=conv["conversation"]["speaker_b"]),
        ]
        for conv in data
    }
    rules, llm = RuleRouter(), LLMRouter(client, fallback=RuleRouter())
    try:
        for n, item in enumerate(items, 1):
            known = persons[item.conversation]
            item.rules = rules.plan(item.question, known).intent
            started = time.monotonic()
            plan = llm.plan(item.question, known)
            item.llm_seconds = time.monotonic() - started
            item.llm, item.llm_router = plan.intent, plan.router
            print(
                f"{n}/{len(items)} {item.expected:10} rules={item.rules:10} "
                f"llm={item.llm:10} ({item.llm_router}, {item.llm_seconds:.1f}s) {item.question}",
                flush=True,
            )
    finally:
        print(f"client: {client.stats.model_dump()}", flush=True)
        client.close()


def markdown(report: dict[str, Any], meta: dict[str, Any]) -> str:
    lines = [
        "# Intent router: LLM router vs rule router (LoCoMo dev)",
        "",
        f"Model: {meta['model']} via llama-cpp-python's server, structured output as "
        f"`{meta['response_format']}`; {meta['questions']} questions (up to "
        f"{meta['per_category']} per category per conversation, seed {meta['seed']}); "
        f"{meta['seconds_per_call']:.2f} s per LLM call on this machine. Nothing was tuned "
        "on these questions (the router prompt is cogmem's own), so the per-conversation "
        "figures are both held-out.",
        "",
        f"Command: `{meta['command']}`",
        "",
        "LLM router = cogmem's `LLMRouter` as it runs (rule router when the LLM's answer is "
        "unusable); LLM own = accuracy on the questions the LLM itself answered.",
        "",
        "| subset | questions | rule router | LLM router | LLM answered | LLM own |",
        "|---|---|---|---|---|---|",
    ]
    for key, row in report.items():
        if key.startswith("confusion"):
            continue
        lines.append(
            f"| {key} | {row['questions']} | {row['rules']:.1%} | {row['llm_router']:.1%} | "
            f"{row['llm_answered']} | {row['llm_own']:.1%} |"
        )
    for name in ("confusion_rules", "confusion_llm"):
        pairs = sorted(report[name].items(), key=lambda kv: -kv[1])
        lines += ["", f"{name.replace('_', ' ')} (expected->got: count): "]
        lines.append(", ".join(f"{k}: {v}" for k, v in pairs))
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, help="LoCoMo JSON (e.g. /work/shared/data/locomo-dev.json)")
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--base-url", default=None, help="use a running server instead")
    ap.add_argument("--per-category", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="write OUT.json and OUT.md")
    args = ap.parse_args()

    data = json.loads(args.data.read_text(encoding="utf-8"))
    data = data if isinstance(data, list) else [data]
    items = sample(data, args.per_category, args.seed)
    spec = find_model(args.model)
    if spec is None:
        raise SystemExit(f"unknown model {args.model!r}")
    started = time.monotonic()
    if args.base_url:
        run(items, args.base_url, spec.name, data)
        response_format = "see the client line above"
    else:
        model = verify(spec, load_settings().home)
        with LocalLLMServer(
            model, context=spec.context, log_path=Path(tempfile.gettempdir()) / "llm-bench.log"
        ) as server:
            run(items, server.base_url, spec.name, data)
        response_format = "json_object+schema"
    seconds = time.monotonic() - started
    report = summarise(items)
    calls = [i.llm_seconds for i in items]
    meta = {
        "model": f"{spec.title} ({spec.parameters}, {spec.quantization})",
        "response_format": response_format,
        "questions": len(items),
        "per_category": args.per_category,
        "seed": args.seed,
        "seconds_per_call": sum(calls) / len(calls) if calls else 0.0,
        "seconds": round(seconds, 1),
        "command": "python benchmarks/llm_router.py DATA "
        f"--model {args.model} --per-category {args.per_category} --seed {args.seed}",
    }
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        payload = {"meta": meta, "report": report, "items": [i.model_dump() for i in items]}
        args.out.with_suffix(".json").write_text(json.dumps(payload, indent=2) + "\n")
        args.out.with_suffix(".md").write_text(markdown(report, meta))


if __name__ == "__main__":
    main()
