"""The benchmark generators, baselines and scoring helpers (no server, no model)."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections import Counter
from datetime import UTC, datetime

import numpy as np
import pytest
from rapidfuzz import fuzz
from typer.testing import CliRunner

from cogmem.answer import estimate_tokens
from cogmem.bench import collapse, common, planted
from cogmem.models import Evidence

pytestmark = pytest.mark.unit


class HashEmbedder:
    """A deterministic bag-of-words embedder: enough to rank chunks sensibly."""

    name = "hash-test"
    dimension = 256

    def _one(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dimension, dtype=np.float32)
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimension] += 1.0
        norm = np.linalg.norm(vec)
        return vec / norm if norm else vec

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, 256))

    def embed_query(self, text: str) -> np.ndarray:
        return self._one(text)


@pytest.fixture(scope="module")
def convs() -> list[planted.PlantedConversation]:
    return planted.generate(15, seed=3)


# -- planted: the generator ---------------------------------------------------------------
def test_planted_is_deterministic_per_seed() -> None:
    assert planted.generate(4, seed=11) == planted.generate(4, seed=11)
    assert planted.generate(4, seed=11) != planted.generate(4, seed=12)
    # one conversation does not depend on how many were generated with it
    assert planted.generate(6, seed=11)[3] == planted.generate_conversation(11, 3)


def test_planted_conversation_shape(convs: list[planted.PlantedConversation]) -> None:
    assert {c.domain for c in convs} == {d.name for d in planted.DOMAINS}
    for conv in convs:
        assert len(conv.turns) == planted.TURNS
        speakers = [s for s, _ in conv.turns]
        assert speakers[0::2] == ["User"] * 25 and speakers[1::2] == ["Assistant"] * 25
        assert all(text.strip() for _, text in conv.turns)
        model = conv.to_conversation()
        assert [t.source_id for t in model.turns] == [f"T{n}" for n in range(1, 51)]
        assert [t.text for t in model.turns] == [text for _, text in conv.turns]
        assert all(t.at is not None for t in model.turns)


def test_facts_are_planted_verbatim_at_their_turns(
    convs: list[planted.PlantedConversation],
) -> None:
    for conv in convs:
        types = Counter(f.type for f in conv.facts)
        assert set(types) == set(planted.FACT_TYPES)
        assert len({f.turn for f in conv.facts}) == len(conv.facts)
        for fact in conv.facts:
            assert 1 < fact.turn <= conv.compression_turn
            speaker, text = conv.turns[fact.turn - 1]
            assert fact.speaker == speaker
            assert fact.wording in text
            assert fact.id == f"{conv.id}:T{fact.turn}"
            # one sentence, so a sentence-level quote can hold it whole
            assert not re.search(r"[.!?\n]", fact.wording)
            assert "{" not in fact.wording and "{" not in fact.question


def test_planted_wording_appears_nowhere_else(convs: list[planted.PlantedConversation]) -> None:
    """No filler turn (or other fact's turn) fuzzily contains a fact: a hit in a context
    is a hit on the planted turn."""
    for conv in convs:
        for fact in conv.facts:
            for n in range(1, len(conv.turns) + 1):
                if n == fact.turn:
                    continue
                score = fuzz.partial_ratio(fact.wording.lower(), conv.text(n).lower())
                assert score < 80, (conv.id, fact.wording, n, conv.text(n))


def test_multihop_chains(convs: list[planted.PlantedConversation]) -> None:
    for conv in convs:
        assert len(conv.multihop) == 4
        fact_turns = {f.turn for f in conv.facts}
        for q in conv.multihop:
            cause, decision, effect = q.turns
            assert cause < decision < effect <= conv.compression_turn
            links = {f.link: f for f in conv.facts if f.chain == q.chain}
            assert set(links) == {"cause", "decision", "effect"}
            assert links["cause"].type in ("KeyFact", "Reminder")
            assert links["decision"].type == "Decision"
            chain_text = " ".join(conv.text(t) for t in q.turns).lower()
            for keyword in q.keywords:
                assert keyword.lower() in chain_text, (q.id, keyword)
                # keywords live only in planted turns, never in filler
                for n in range(1, len(conv.turns) + 1):
                    if n not in fact_turns:
                        assert keyword.lower() not in conv.text(n).lower(), (q.id, keyword, n)
            assert len(q.keywords) >= 3
        assert Counter(q.kind for q in conv.multihop) == {"causal": 2, "impact": 2}


# -- planted: baselines -------------------------------------------------------------------
def test_truncation_sees_only_the_last_five_turns(
    convs: list[planted.PlantedConversation],
) -> None:
    for conv in convs:
        ctx = planted.truncation_context(conv)
        assert ctx == conv.transcript(46, 50)
        assert ctx.count("\n") == 4
        for n in range(46, 51):
            assert conv.text(n) in ctx
        for fact in conv.facts:  # everything planted is before the compression point
            assert not common.exact_found(fact.wording, ctx)


def test_chunks_overlap_and_cover_the_text() -> None:
    text = "".join(chr(97 + i % 26) for i in range(4321))
    chunks = planted.chunk_text(text, 1000, 200)
    assert all(len(c) <= 1000 for c in chunks)
    assert all(len(c) == 1000 for c in chunks[:-1])
    for a, b in itertools.pairwise(chunks):
        assert a[-200:] == b[:200]
    rebuilt = chunks[0] + "".join(c[200:] for c in chunks[1:])
    assert rebuilt == text
    assert planted.chunk_text("", 1000, 200) == []
    assert planted.chunk_text("short", 1000, 200) == ["short"]
    with pytest.raises(ValueError):
        planted.chunk_text(text, 100, 100)


def test_rag_ranks_chunks_and_respects_the_budget(
    convs: list[planted.PlantedConversation],
) -> None:
    conv = convs[0]
    index = planted.RagIndex(conv.transcript(), HashEmbedder())
    assert len(index.chunks) >= 10
    fact = conv.facts[0]
    top = index.top(fact.wording, 3)
    assert len(top) == 3
    assert common.fuzzy_found(fact.wording, top[0])  # the chunk holding it ranks first
    for budget in (300, 2000):
        ctx = index.context(fact.question, 10, budget)
        assert estimate_tokens(ctx) <= budget + 5
    assert index.context(fact.question, 3, 10) == ""  # no chunk fits ten tokens


def test_fit_budget_keeps_whole_blocks_in_order() -> None:
    blocks = ["one two three " * 20, "x " * 2000, "small block"]
    out = common.fit_budget(blocks, 120)
    assert out.startswith("one two three")
    assert "small block" in out and "x x" not in out
    assert common.fit_budget([], 100) == ""


def test_summarization_baseline_with_a_fake_llm(
    convs: list[planted.PlantedConversation],
) -> None:
    conv = convs[0]
    seen: list[str] = []

    def summarize(system: str, user: str) -> str:
        seen.append(user)
        return "The user wants type hints. " * 400  # far too long: must be cut

    ctx = planted.summarization_context(conv, summarize, budget_tokens=800)
    assert seen and conv.text(1) in seen[0] and conv.text(46) not in seen[0]
    assert ctx.endswith(planted.truncation_context(conv))
    assert ctx.startswith("Summary of earlier conversation: The user wants type hints.")
    assert estimate_tokens(ctx) <= 800 + 10


def test_scores_are_fractions(convs: list[planted.PlantedConversation]) -> None:
    conv = convs[0]
    scores = planted.SystemScores("x")
    everything = conv.transcript()
    for i, fact in enumerate(conv.facts):
        scores.score_fact(fact, everything if i % 2 else "")
    for q in conv.multihop:
        scores.score_question(q, everything)
    summary = planted.summarise_scores(scores, conv.facts, conv.multihop)
    assert (
        summary["recall"]
        == summary["exact"]
        == pytest.approx(sum(1 for i in range(len(conv.facts)) if i % 2) / len(conv.facts))
    )
    assert summary["multihop_coverage"] == 1.0 and summary["multihop_pass"] == 1.0
    for kind in planted.FACT_TYPES:
        assert 0.0 <= summary["by_type"][kind]["recall"] <= 1.0


# -- scoring helpers ------------------------------------------------------------------------
def test_fuzzy_exact_and_keywords() -> None:
    ctx = 'quote: "Please use type hints everywhere in the billing service code."'
    assert common.exact_found("Please use type hints everywhere", ctx)
    assert not common.exact_found("please use type hints everywhere", ctx)  # verbatim
    assert common.fuzzy_found("please use type hints everywhere", ctx)
    assert common.fuzzy_found("please use type hints everywhere in billing code", ctx)
    assert not common.fuzzy_found("We decided to use PostgreSQL for JSONB", ctx)
    assert common.keyword_coverage(["type hints", "BILLING", "GraphQL"], ctx) == pytest.approx(
        2 / 3
    )
    assert common.keyword_coverage([], ctx) == 1.0


def test_presentation_helpers() -> None:
    table = common.markdown_table(["a", "b"], [[1, "x|y"]])
    assert table.splitlines() == ["| a | b |", "|---|---|", "| 1 | x\\|y |"]
    assert common.ratio_text(0.9, 0.6) == "1.50× (+30.0pp)"
    assert common.ratio_text(0.2, 0.0).startswith("∞")
    assert common.pct(0.1234) == "12.3%"
    assert common.percentile([3.0, 1.0, 2.0], 50) == 2.0
    argv = ["/x/bin/cogmem", "bench", "planted", "-n", "2"]
    assert common.command_line(argv, env={}) == "cogmem bench planted -n 2"
    env = {"COGMEM_EMBED_THREADS": "1", "COGMEM_EMBED_BACKEND": "numpy", "NEO4J_PASSWORD": "x"}
    assert (
        common.command_line(argv, env=env)
        == "COGMEM_EMBED_BACKEND=numpy COGMEM_EMBED_THREADS=1 cogmem bench planted -n 2"
    )
    line = common.machine_line(common.machine_info(None, "minilm", "bolt://x"))
    assert "cores" in line and "Python" in line


# -- collapse: the generator ----------------------------------------------------------------
def test_collapse_is_deterministic_and_sized() -> None:
    a = collapse.generate_corpus(40, seed=5)
    assert a == collapse.generate_corpus(40, seed=5)
    assert a != collapse.generate_corpus(40, seed=6)
    assert len(a.pairs) == 40
    assert len(collapse.generate_corpus(150, seed=0).pairs) == 150
    assert len(collapse.generate_corpus(7, seed=0).pairs) == 7


def test_collapse_pairs_are_well_formed() -> None:
    corpus = collapse.generate_corpus(150, seed=0)
    turns = {t.source_id: t for t in corpus.turns()}
    assert len(turns) == len(corpus.turns())  # source ids are unique
    conv_of = {t.source_id: c for c in corpus.conversations for t in c.turns}
    order = {c.id: i for i, c in enumerate(corpus.conversations)}
    speakers_of = {c.id: set(c.speakers) for c in corpus.conversations}
    for pair in corpus.pairs:
        record, opinion = turns[pair.record_turn], turns[pair.opinion_turn]
        assert pair.owner != pair.holder
        assert record.speaker == pair.owner and opinion.speaker == pair.holder
        assert pair.record in record.text and pair.opinion in opinion.text
        assert pair.record.startswith("I ")
        assert re.search(rf"\b{re.escape(pair.owner)}\b", pair.opinion)
        # gossip: the owner is not in the room, and the record was told first
        record_conv, opinion_conv = conv_of[pair.record_turn], conv_of[pair.opinion_turn]
        assert pair.owner not in speakers_of[opinion_conv.id]
        assert pair.holder in speakers_of[record_conv.id]
        assert order[record_conv.id] < order[opinion_conv.id]
        assert pair.owner in pair.record_question and pair.holder not in pair.record_question
        assert pair.owner in pair.opinion_question and pair.holder in pair.opinion_question
        assert "{" not in pair.opinion + pair.record + pair.record_question
    # varied: many topics, both sentiments, both opinion forms, both question forms
    assert len({p.topic for p in corpus.pairs}) >= 15
    assert {p.sentiment for p in corpus.pairs} == {"positive", "negative"}
    assert {p.opinion_form for p in corpus.pairs} == {"thing", "event"}
    assert {p.record_question_kind for p in corpus.pairs} == {"time", "topic"}
    # each person appears in at most two conversations (as teller and as listener)
    appearances = Counter(s for c in corpus.conversations for s in c.speakers)
    assert max(appearances.values()) <= 2
    assert all(name in collapse.EVENT_PHRASES for name in (t.name for t in collapse.TOPICS))


def test_collapse_owner_times_are_distinct() -> None:
    """'What did X do <when>?' must have one answer among X's records."""
    corpus = collapse.generate_corpus(150, seed=2)
    told: dict[str, list[str]] = {}
    for pair in corpus.pairs:
        told.setdefault(pair.owner, []).append(pair.record)
    for records in told.values():
        times = [next(t for t in collapse.TIMES if r.endswith(t)) for r in records]
        assert len(set(times)) == len(times)


def test_collapse_conversation_model() -> None:
    corpus = collapse.generate_corpus(10, seed=0)
    conv = corpus.conversations[1].to_conversation()
    assert conv.speakers == list(corpus.conversations[1].speakers)
    assert [t.source_id for t in conv.turns] == [t.source_id for t in corpus.conversations[1].turns]
    assert all(t.at and t.at >= datetime(2024, 1, 1, tzinfo=UTC) for t in conv.turns)


# -- collapse: judging -----------------------------------------------------------------------
def _pair() -> collapse.Pair:
    return collapse.generate_corpus(1, seed=0).pairs[0]


def _ev(turn: str, type_: str, speaker: str) -> Evidence:
    return Evidence(record_id="r", type=type_, content="c", speaker=speaker, turn_source_id=turn)


def test_judging_flat_and_cogmem() -> None:
    p = _pair()
    assert collapse.judge_flat(p, "record", p.record_turn) == "correct"
    assert collapse.judge_flat(p, "record", p.opinion_turn) == "misattributed"
    assert collapse.judge_flat(p, "opinion", p.record_turn) == "misattributed"
    assert collapse.judge_flat(p, "opinion", "elsewhere") == "other"
    assert collapse.judge_flat(p, "opinion", None) == "none"
    assert collapse.judge_cogmem(p, "record", _ev(p.record_turn, "Event", p.owner)) == "correct"
    # the holder's claim is a misattribution even when it points at another turn
    assert (
        collapse.judge_cogmem(p, "record", _ev("elsewhere", "Claim", p.holder)) == "misattributed"
    )
    assert (
        collapse.judge_cogmem(p, "record", _ev(p.opinion_turn, "Turn", p.holder)) == "misattributed"
    )
    assert collapse.judge_cogmem(p, "opinion", _ev(p.opinion_turn, "Claim", p.holder)) == (
        "correct"
    )
    assert collapse.judge_cogmem(p, "opinion", _ev(p.record_turn, "Event", p.owner)) == (
        "misattributed"
    )
    assert collapse.judge_cogmem(p, "opinion", None) == "none"
    assert collapse.rates(["correct", "misattributed", "misattributed", "other"]) == {
        "correct": 0.25,
        "misattributed": 0.5,
        "other": 0.25,
        "none": 0.0,
    }


def test_flat_index_top1() -> None:
    corpus = collapse.generate_corpus(10, seed=0)
    index = collapse.FlatIndex(corpus.turns(), HashEmbedder(), speaker=False)
    target = corpus.pairs[0]
    assert index.top1(turns_text := target.record) in {target.record_turn}, turns_text
    cos = collapse.pair_cosines(corpus.pairs, HashEmbedder(), corpus)
    assert len(cos["sentences"]) == len(cos["turns"]) == 10
    assert all(-1.0 <= c <= 1.0 + 1e-6 for c in cos["sentences"])


# -- the CLI ---------------------------------------------------------------------------------
def test_bench_commands_are_registered() -> None:
    from cogmem.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["bench", "--help"])
    assert result.exit_code == 0, result.output
    assert "planted" in result.output and "collapse" in result.output
    for command, option in (("planted", "--conversations"), ("collapse", "--pairs")):
        result = runner.invoke(app, ["bench", command, "--help"])
        assert result.exit_code == 0 and option in result.output
        assert "--uri" in result.output and "--seed" in result.output
