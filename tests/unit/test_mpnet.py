"""The numpy and ONNX Runtime MPNet encoders against transformers' own MPNetModel, on a small
random model this test builds (the published weights are checked by their SHA-256 instead)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from cogmem.embed import mpnet as mpnet_mod
from cogmem.embed.base import EmbedderUnavailable
from cogmem.embed.bert import relative_buckets
from cogmem.embed.mpnet import MPNetEmbedder, check_mpnet_dir
from cogmem.embed.threads import BLAS

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

pytestmark = pytest.mark.unit

WORDS = (
    "i went to the support group yesterday it was so powerful when did she paint a "
    "sunrise lake last year special me you we hike camp mountains book"
).split()


def _tokenizer(path: Path) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for word in WORDS:
        vocab.setdefault(word, len(vocab))
    for piece in ("##s", "##ed", "##ing"):
        vocab[piece] = len(vocab)
    tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token="<unk>"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    tok.save(str(path / "tokenizer.json"))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    path = tmp_path_factory.mktemp("tiny-mpnet")
    torch.manual_seed(7)
    config = transformers.MPNetConfig(
        vocab_size=64,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=48,
        max_position_embeddings=130,
        relative_attention_num_buckets=32,
    )
    model = transformers.MPNetModel(config, add_pooling_layer=False).eval()
    model.save_pretrained(str(path), safe_serialization=True)
    _tokenizer(path)
    return path, model


def _reference(path: Path, model: object, texts: list[str]) -> np.ndarray:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    out = []
    with torch.no_grad():
        for text in texts:
            ids = torch.tensor([tok.encode(text).ids])
            states = model(input_ids=ids).last_hidden_state[0]  # type: ignore[operator]
            v = states.mean(dim=0).numpy()
            out.append(v / np.linalg.norm(v))
    return np.stack(out)


@pytest.mark.parametrize("backend", ["numpy", "onnx"])
def test_vectors_match_transformers_mpnet_for_short_and_long_texts(
    tiny: tuple, backend: str, tmp_path: Path
) -> None:
    path, model = tiny
    texts = [
        "hike",
        "I went to the support group yesterday",
        " ".join(WORDS * 3),  # 100+ tokens: distances in the logarithmic buckets
        "When did she paint a sunrise?",
    ]
    embedder = MPNetEmbedder(path, verify=False, backend=backend, cache_dir=tmp_path)
    ours, rows = embedder.embed_with_tokens(texts)
    assert ours.shape == (4, 32)
    np.testing.assert_allclose(ours, _reference(path, model, texts), atol=2e-5)
    numpy_rows = MPNetEmbedder(path, verify=False, backend="numpy").embed_with_tokens(texts)[1]
    for a, b in zip(rows, numpy_rows, strict=True):
        np.testing.assert_allclose(a, b, atol=2e-5)


def test_auto_runs_a_small_call_on_onnx_runtime_and_a_large_one_in_numpy(
    tiny: tuple, tmp_path: Path
) -> None:
    source, model = tiny
    path = tmp_path / "model"  # a folder of its own: the process loads each folder once
    shutil.copytree(source, path)
    cache = tmp_path / "cache"
    embedder = MPNetEmbedder(path, verify=False, backend="auto", cache_dir=cache)
    onnx = embedder._model.onnx_encoder(path, cache, 1)
    assert onnx is not None
    (built,) = list(cache.glob("mpnet-float-*.onnx"))  # built once, in a child
    calls: list[int] = []
    token_states = onnx.token_states

    def counted(sequences: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        calls.append(len(sequences))
        return token_states(sequences)

    onnx.token_states = counted
    try:
        question = "When did she paint a sunrise?"
        small = embedder.embed_query(question)
        assert calls == [1]
        long_texts = [" ".join(WORDS * 3)] * 8  # > SMALL_CALL_TOKENS: numpy
        large = embedder.embed(long_texts)
        assert calls == [1]
    finally:
        del onnx.token_states
    np.testing.assert_allclose(small, _reference(path, model, [question])[0], atol=2e-5)
    np.testing.assert_allclose(large, _reference(path, model, long_texts), atol=2e-5)

    # another process finds the model in the cache and builds nothing
    def no_build(*args: object) -> None:
        raise AssertionError("rebuilt a cached model")

    with pytest.MonkeyPatch.context() as m:
        m.setattr(mpnet_mod, "build_in_child", no_build)
        again = mpnet_mod.cached_onnx_path(path, cache, embedder._model.weights_sha(path))
    assert again == built


def test_a_backend_mpnet_lacks_is_refused_by_name(tiny: tuple) -> None:
    path, _ = tiny
    with pytest.raises(EmbedderUnavailable, match="no backend 'onnx-int8'"):
        MPNetEmbedder(path, verify=False, backend="onnx-int8")


def test_a_texts_vector_does_not_depend_on_its_batch(tiny: tuple) -> None:
    path, _ = tiny
    embedder = MPNetEmbedder(path, verify=False, backend="numpy")
    alone = embedder.embed_query("we camp in the mountains")
    batched = embedder.embed(["book", "we camp in the mountains", " ".join(WORDS)])[1]
    np.testing.assert_allclose(alone, batched, atol=1e-6)


def test_batches_side_by_side_give_the_vectors_and_rows_of_one_after_another(
    tiny: tuple,
) -> None:
    path, model = tiny
    # short and long texts: several batches (a batch closes on wasted padding)
    texts = [" ".join(WORDS[: 1 + (i * 7) % len(WORDS)] * (1 + i % 4)) for i in range(24)]
    serial = MPNetEmbedder(path, verify=False, workers=1, backend="numpy")
    parallel = MPNetEmbedder(path, verify=False, workers=2, backend="numpy")
    threads: set[str] = set()
    encoder = parallel._model.encoder
    token_states = encoder.token_states

    def recorded(sequences: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        threads.add(threading.current_thread().name)
        return token_states(sequences)

    one_v, one_rows = serial.embed_with_tokens(texts)
    encoder.token_states = recorded  # type: ignore[method-assign]
    try:
        two_v, two_rows = parallel.embed_with_tokens(texts)
    finally:
        del encoder.token_states  # the class's method again
    assert BLAS.available  # threadpoolctl is a dependency: passes run one BLAS thread each
    assert threads and all(t.startswith("cogmem-embed") for t in threads)  # the workers
    np.testing.assert_allclose(two_v, one_v, atol=1e-6)
    for a, b in zip(two_rows, one_rows, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-5)
    np.testing.assert_allclose(two_v, _reference(path, model, texts), atol=2e-5)
    with pytest.raises(ValueError, match="workers"):
        MPNetEmbedder(path, verify=False, workers=-1)


def test_token_rows_leave_out_the_sentence_markers(tiny: tuple) -> None:
    path, _ = tiny
    embedder = MPNetEmbedder(path, verify=False, backend="numpy")
    vectors, rows = embedder.embed_with_tokens(["She hikes the lake"])
    assert embedder.pieces("She hikes the lake") == ["she", "hike", "##s", "the", "lake"]
    assert rows[0].shape == (5, 32)
    np.testing.assert_allclose(vectors[0], embedder.embed_query("She hikes the lake"), atol=1e-6)


def test_relative_buckets_are_transformers_buckets() -> None:
    from transformers.models.mpnet.modeling_mpnet import MPNetEncoder

    pos = torch.arange(200)
    relative = pos[None, :] - pos[:, None]
    expected = MPNetEncoder.relative_position_bucket(relative).numpy()
    np.testing.assert_array_equal(relative_buckets(200), expected)
    # each width's table is the corner of a wider one (the ONNX encoder slices one table)
    for width in (1, 7, 64, 130):
        np.testing.assert_array_equal(
            relative_buckets(200)[:width, :width], relative_buckets(width)
        )


def test_weights_other_than_the_published_ones_are_refused(tiny: tuple) -> None:
    path, _ = tiny
    check_mpnet_dir(path, verify=False)
    with pytest.raises(EmbedderUnavailable, match="not the published all-mpnet-base-v2"):
        MPNetEmbedder(path)


def test_a_folder_without_the_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EmbedderUnavailable, match=r"lacks config\.json"):
        check_mpnet_dir(tmp_path)


def test_settings_pick_mpnets_backend_and_refuse_int8(tiny: tuple, tmp_path: Path) -> None:
    from cogmem.config import Settings
    from cogmem.embed.factory import embedder_identity, make_embedder

    path, _ = tiny
    base = {"embedder": "mpnet", "embedder_path": str(path), "home": str(tmp_path)}
    assert embedder_identity(Settings(**base, embed_backend="numpy")) == ("mpnet", 32)
    with pytest.raises(EmbedderUnavailable, match="no backend 'onnx-int8'"):
        embedder_identity(Settings(**base, embed_backend="onnx-int8"))
    with pytest.raises(EmbedderUnavailable, match="no backend 'onnx-int8'"):
        make_embedder(Settings(**base, embed_backend="onnx-int8"))  # before any loading
