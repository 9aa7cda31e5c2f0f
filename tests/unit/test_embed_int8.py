"""The ``embed_backend`` setting of the MiniLM embedder: numpy, ONNX Runtime float32 and
ONNX Runtime dynamic int8 — which encoder each picks, the int8 vectors' fidelity (cosine
to float32, nearest neighbours on a small retrieval set), the int8 model's disk cache, the
embedder names a store records, and the error without onnxruntime."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from cogmem.config import ConfigError, Settings, load_settings
from cogmem.embed import minilm as minilm_mod
from cogmem.embed.base import EmbedderUnavailable, clear_embedder_cache
from cogmem.embed.bert import BertEncoder
from cogmem.embed.factory import embedder_identity, make_embedder
from cogmem.embed.minilm import MiniLMEmbedder, minilm_model_dir, minilm_name

pytestmark = pytest.mark.unit

SENTENCES = [
    "Ingrid repotted her fig tree on the balcony before the first frost.",
    "Tomasz finally beat his brother at chess using the Sicilian defence.",
    "The ferry to the island was cancelled because of the storm.",
    "Priya is learning to bake sourdough and her starter is called Gerald.",
    "We should book the cabin for the long weekend in October, before prices go up, "
    "and ask whether dogs are allowed since Biscuit comes everywhere with us.",
]

#: concept-like names (embedded on their own at ingest): as close as sentences
SHORT = ["pottery", "fig tree", "marathon", "cello", "Lisbon", "adoption agency"]
#: bare fillers drift most under int8 (measured: "ok" 0.968, "yes!" 0.974, "hi" 0.980)
FILLERS = ["ok", "yes!", "hi"]

# 10 questions, each with exactly one answering sentence among 30 (other topics and
# names than LoCoMo's)
DOCS = [
    "Ingrid grows tomatoes and basil in raised beds behind her house.",  # 0
    "Tomasz plays chess online every evening after dinner.",  # 1
    "Priya's sourdough starter lives in a jar on the kitchen counter.",  # 2
    "Kwame sailed a small dinghy across the bay last summer.",  # 3
    "Aiko watched the Perseid meteor shower from a hill outside town.",  # 4
    "Bruno repaired the vintage motorcycle he inherited from his grandfather.",  # 5
    "Leila is training for a marathon in Lisbon next spring.",  # 6
    "Sven knits wool sweaters for his nieces every winter.",  # 7
    "Mateo adopted a three-legged cat from the animal shelter.",  # 8
    "Hana practises the cello for an hour before work.",  # 9
    "The library extended its opening hours on weekends.",
    "A new bakery opened on the corner of the main square.",
    "The train to the airport was delayed by twenty minutes.",
    "Prices of coffee beans rose sharply this year.",
    "The museum is showing an exhibition on ancient maps.",
    "Heavy rain flooded the underpass near the station.",
    "The city council voted to plant more trees along the river.",
    "A software update broke the printer driver again.",
    "The football match was postponed because of snow.",
    "Our neighbours are renovating their kitchen.",
    "The bus drivers announced a strike for Friday.",
    "The supermarket now sells locally grown apples.",
    "Someone left an umbrella in the meeting room.",
    "The conference keynote was about battery recycling.",
    "The swimming pool closes for maintenance in August.",
    "A documentary about deep-sea creatures won an award.",
    "The power went out for an hour during the storm.",
    "The school added a robotics club this term.",
    "The bridge will be repainted over the summer.",
    "Tickets for the jazz festival sold out in a day.",
]
QUESTIONS = [
    ("What vegetables does Ingrid grow in her garden?", 0),
    ("Which board game does Tomasz play at night?", 1),
    ("Where does Priya keep her bread starter?", 2),
    ("What kind of boat did Kwame sail?", 3),
    ("What did Aiko see in the night sky?", 4),
    ("What vehicle did Bruno fix?", 5),
    ("Which race is Leila preparing for?", 6),
    ("What does Sven make for his nieces?", 7),
    ("What pet did Mateo get from the shelter?", 8),
    ("Which instrument does Hana play?", 9),
]


@pytest.fixture(scope="module")
def model_dir() -> Path:
    try:
        return minilm_model_dir()
    except EmbedderUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def onnx_ready() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")


@pytest.fixture(scope="module")
def int8_home(tmp_path_factory: pytest.TempPathFactory, onnx_ready: None) -> Path:
    """A COGMEM_HOME of the module's own: the int8 model is built there once."""
    return tmp_path_factory.mktemp("cogmem-home")


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    clear_embedder_cache()
    yield
    clear_embedder_cache()


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1))


# -- the setting ---------------------------------------------------------------------


def test_setting_default_env_and_validation(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert Settings().embed_backend == "auto"
    monkeypatch.setenv("COGMEM_CONFIG", str(tmp_path / "cogmem.toml"))  # none written
    monkeypatch.setenv("COGMEM_EMBED_BACKEND", "onnx-int8")
    assert load_settings().embed_backend == "onnx-int8"
    monkeypatch.setenv("COGMEM_EMBED_BACKEND", "tensorflow")
    with pytest.raises(ConfigError, match="COGMEM_EMBED_BACKEND"):
        load_settings()


def test_names() -> None:
    assert minilm_name("auto") == minilm_name("numpy") == minilm_name("onnx") == "minilm"
    assert minilm_name("onnx-int8") == "minilm-int8"
    with pytest.raises(ValueError, match="backend"):
        minilm_name("int4")


def test_identity_follows_backend(model_dir: Path, onnx_ready: None) -> None:
    """The store records the int8 embedder under another name, so a graph embedded with
    one cannot silently be searched with the other; float32 ONNX shares numpy's name."""
    for backend, name in (("numpy", "minilm"), ("onnx", "minilm"), ("onnx-int8", "minilm-int8")):
        assert embedder_identity(Settings(embed_backend=backend)) == (name, 384)  # type: ignore[arg-type]


def test_backend_picks_encoder(model_dir: Path, int8_home: Path, fresh_cache: None) -> None:
    from cogmem.embed.onnx import OnnxBertEncoder

    numpy_e = make_embedder(Settings(home=int8_home))
    onnx_e = make_embedder(Settings(home=int8_home, embed_backend="onnx"))
    int8_e = make_embedder(Settings(home=int8_home, embed_backend="onnx-int8"))
    assert isinstance(numpy_e, MiniLMEmbedder) and isinstance(onnx_e, MiniLMEmbedder)
    assert isinstance(int8_e, MiniLMEmbedder)
    assert type(numpy_e._model.encoder) is BertEncoder
    assert type(onnx_e._model.encoder) is OnnxBertEncoder
    assert type(int8_e._model.encoder) is OnnxBertEncoder
    assert onnx_e._model is not int8_e._model
    assert (numpy_e.name, onnx_e.name, int8_e.name) == ("minilm", "minilm", "minilm-int8")
    assert int8_e._model.int8_path is not None
    assert int8_e._model.int8_path.parent == int8_home / "models"
    assert int8_e._model.int8_path.is_file()
    # float32 ONNX gives numpy's vectors; int8 close to them
    ref = numpy_e.embed(SENTENCES)
    assert np.abs(onnx_e.embed(SENTENCES) - ref).max() < 1e-5
    int8 = int8_e.embed(SENTENCES)
    assert int8.shape == ref.shape and int8.dtype == np.float32
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    assert _cosines(int8, ref).min() >= 0.97
    assert _cosines(int8_e.embed(SHORT), numpy_e.embed(SHORT)).min() >= 0.97
    assert _cosines(int8_e.embed(FILLERS), numpy_e.embed(FILLERS)).min() >= 0.95
    # int8 activations are quantised with one scale per forward pass: a text's vector
    # depends a little on its batch-mates (measured: cosine >= 0.988 alone vs in a batch)
    alone = np.stack([int8_e.embed_query(t) for t in SENTENCES])
    assert _cosines(alone, int8).min() >= 0.98
    assert np.array_equal(int8_e.embed(SENTENCES), int8)  # but a batch is deterministic


def test_int8_keeps_nearest_neighbours(model_dir: Path, int8_home: Path, fresh_cache: None) -> None:
    ref_e = MiniLMEmbedder(model_dir)
    int8_e = MiniLMEmbedder(model_dir, backend="onnx-int8", cache_dir=int8_home / "models")
    questions = [q for q, _ in QUESTIONS]
    answers = np.array([a for _, a in QUESTIONS])
    ref_scores = ref_e.embed(questions) @ ref_e.embed(DOCS).T
    int8_scores = int8_e.embed(questions) @ int8_e.embed(DOCS).T
    assert (ref_scores.argmax(axis=1) == answers).all()  # the set is answerable
    assert (int8_scores.argmax(axis=1) == answers).all()
    # the top 3 keep their members (near-ties among distractors may swap places)
    top3 = np.argsort(-ref_scores, axis=1)[:, :3]
    int8_top3 = np.argsort(-int8_scores, axis=1)[:, :3]
    overlap = [len(set(a) & set(b)) / 3 for a, b in zip(top3, int8_top3, strict=True)]
    assert np.mean(overlap) >= 0.9
    # every question ranks its answer first by a wide margin under both
    margin = np.sort(int8_scores, axis=1)[:, -1] - np.sort(int8_scores, axis=1)[:, -2]
    assert margin.min() > 0.1
    cos = _cosines(int8_e.embed(DOCS + questions), ref_e.embed(DOCS + questions))
    assert cos.min() >= 0.97 and cos.mean() >= 0.985


def test_int8_workers_share_one_session(
    model_dir: Path, int8_home: Path, fresh_cache: None
) -> None:
    """Two workers on the one single-threaded session give the serial vectors."""
    cache = int8_home / "models"
    texts = DOCS * 3 + [f"{d} And then {DOCS[-1 - i].lower()}" for i, d in enumerate(DOCS)]
    serial = MiniLMEmbedder(model_dir, 4, 1, backend="onnx-int8", cache_dir=cache).embed(texts)
    parallel = MiniLMEmbedder(model_dir, 4, 2, backend="onnx-int8", cache_dir=cache).embed(texts)
    assert np.abs(serial - parallel).max() < 1e-5


# -- the disk cache ------------------------------------------------------------------


def test_int8_disk_cache_reused_and_rebuilt(
    model_dir: Path, int8_home: Path, fresh_cache: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = int8_home / "models"
    first = MiniLMEmbedder(model_dir, backend="onnx-int8", cache_dir=cache)
    path = first._model.int8_path
    assert path is not None and path.is_file()
    assert path.name.startswith("minilm-int8-") and path.suffix == ".onnx"
    vectors = first.embed(SENTENCES)
    clear_embedder_cache()  # a new process, as far as the model goes

    def no_build(*args: object) -> None:
        raise AssertionError("rebuilt although the cached model is there")

    with monkeypatch.context() as m:
        m.setattr(minilm_mod, "_build_int8_in_child", no_build)
        m.setattr(minilm_mod, "_build_int8_file", no_build)
        second = MiniLMEmbedder(model_dir, backend="onnx-int8", cache_dir=cache)
    assert second._model is not first._model and not second._model.int8_built
    assert np.array_equal(second.embed(SENTENCES), vectors)

    path.unlink()
    clear_embedder_cache()
    third = MiniLMEmbedder(model_dir, backend="onnx-int8", cache_dir=cache)
    assert third._model.int8_built and path.is_file()
    assert not list(cache.glob("*.tmp"))
    assert np.abs(third.embed(SENTENCES) - vectors).max() < 1e-5


def test_int8_cache_key_follows_weights_and_runtime(
    model_dir: Path, tmp_path: Path, onnx_ready: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxruntime

    key = minilm_mod.int8_cache_path(model_dir, tmp_path)
    assert key == minilm_mod.int8_cache_path(model_dir, tmp_path)
    monkeypatch.setattr(onnxruntime, "__version__", "0.0.0-other")
    assert minilm_mod.int8_cache_path(model_dir, tmp_path) != key
    monkeypatch.undo()
    other = tmp_path / "other-model"
    other.mkdir()
    (other / "model.safetensors").write_bytes(b"not the same weights")
    assert minilm_mod.int8_cache_path(other, tmp_path) != key


def test_int8_unwritable_cache_still_works(
    model_dir: Path, tmp_path: Path, onnx_ready: None, fresh_cache: None
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    embedder = MiniLMEmbedder(model_dir, backend="onnx-int8", cache_dir=blocker / "models")
    assert embedder._model.int8_built
    assert embedder.embed(["hello world"]).shape == (1, 384)


# -- without onnxruntime ---------------------------------------------------------------


@pytest.mark.parametrize("backend", ["onnx", "onnx-int8"])
def test_missing_onnxruntime(
    model_dir: Path,
    tmp_path: Path,
    fresh_cache: None,
    monkeypatch: pytest.MonkeyPatch,
    backend: str,
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import raises ImportError
    with pytest.raises(EmbedderUnavailable, match=r"pip install onnxruntime onnx") as info:
        MiniLMEmbedder(model_dir, backend=backend, cache_dir=tmp_path)
    assert "\n" not in str(info.value)
    settings = Settings(home=tmp_path, embed_backend=backend)  # type: ignore[arg-type]
    with pytest.raises(EmbedderUnavailable, match="pip install onnxruntime onnx"):
        make_embedder(settings)
    with pytest.raises(EmbedderUnavailable, match="pip install onnxruntime onnx"):
        embedder_identity(settings)
    # the default backend does not need it
    assert MiniLMEmbedder(model_dir).embed(["still works"]).shape == (1, 384)


# -- the default backend: batches in numpy, single queries on ONNX Runtime --------------


def test_auto_answers_queries_on_onnx_with_numpys_vectors(
    model_dir: Path, tmp_path: Path, onnx_ready: None, fresh_cache: None
) -> None:
    from cogmem.embed.onnx import OnnxBertEncoder

    embedder = MiniLMEmbedder(model_dir, cache_dir=tmp_path)
    assert embedder.backend == "auto" and embedder.name == "minilm"
    assert type(embedder._model.encoder) is BertEncoder  # batches stay in numpy
    for text in SENTENCES:
        assert np.abs(embedder.embed_query(text) - embedder.embed([text])[0]).max() < 1e-5
    assert isinstance(embedder._model._query_encoder, OnnxBertEncoder)
    assert len(list(tmp_path.glob("minilm-float-*.onnx"))) == 1  # built once, cached


@pytest.mark.parametrize("threads", [1, 2])
def test_auto_runs_a_live_turns_passes_with_numpys_vectors(
    model_dir: Path, tmp_path: Path, onnx_ready: None, fresh_cache: None, threads: int
) -> None:
    """One-thread session: the passes side by side on the workers; two threads: in turn."""
    from cogmem.embed.batching import cheapest_groups

    turn = (
        "Ines: the sourdough starter finally rose after four days of feeding, so on "
        "Saturday I will bake rye loaves for the market and bring some to Rafael's party."
    )
    texts = [turn, "sourdough", "Ines bakes rye loaves for the market.", "Rafael"]
    auto = MiniLMEmbedder(model_dir, cache_dir=tmp_path, threads=threads)
    seqs = [auto.encode_ids(t) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: len(seqs[i]))
    assert len(cheapest_groups(order, seqs)) > 1  # more than one pass: the parallel path
    reference = MiniLMEmbedder(model_dir, backend="numpy").embed(texts)
    assert np.abs(auto.embed(texts) - reference).max() < 1e-5
    quick = auto._model._query_encoder
    assert quick is not None and quick.threads == threads  # they ran on ONNX Runtime


def test_onnx_sessions_threads_sleep_when_idle(onnx_ready: None) -> None:
    """Spinning pool threads would take a core from concurrent searches between runs."""
    from cogmem.embed.onnx import session_options

    opts = session_options(2)
    assert opts.intra_op_num_threads == 2
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_auto_without_onnxruntime_answers_queries_in_numpy(
    model_dir: Path, tmp_path: Path, fresh_cache: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import raises ImportError
    embedder = MiniLMEmbedder(model_dir, cache_dir=tmp_path)
    vec = embedder.embed_query(SENTENCES[0])
    assert embedder._model._query_encoder is None and embedder._model._query_looked
    assert np.array_equal(vec, embedder.embed([SENTENCES[0]])[0])
    assert not list(tmp_path.glob("*.onnx"))
