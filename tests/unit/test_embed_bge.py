"""The BGE-M3 loading code, on a tiny XLM-RoBERTa model built here in BGE-M3's folder
layout (config + weights + tokenizer + colbert_linear.pt + sparse_linear.pt).

Needs the ``bge`` extra (FlagEmbedding, transformers, torch); skipped without it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("FlagEmbedding")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from cogmem.config import Settings  # noqa: E402
from cogmem.embed import (  # noqa: E402
    BGEM3Embedder,
    Embedder,
    EmbedderUnavailable,
    check_bge_m3_dir,
    embedder_identity,
    make_embedder,
)
from cogmem.embed import base as embed_base  # noqa: E402

pytestmark = pytest.mark.unit

HIDDEN = 32
SPARSE_BIAS = 0.5

CORPUS = [
    "Caroline went to the LGBTQ support group on Sunday.",
    "Melanie paints sunsets by the lake with her kids.",
    "The quick brown fox jumps over the lazy dog.",
    "They talked about adoption agencies and counseling.",
    "Hello world, this is a tiny tokenizer for a tiny model.",
]


def _tiny_tokenizer() -> Any:
    """A small Unigram tokenizer with XLM-R's special tokens, as a fast XLM-R tokenizer."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from tokenizers.trainers import UnigramTrainer

    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = UnigramTrainer(
        vocab_size=200,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        unk_token="<unk>",
    )
    tok.train_from_iterator(CORPUS * 4, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)],
    )
    return transformers.XLMRobertaTokenizerFast(tokenizer_object=tok, model_max_length=512)


@pytest.fixture(scope="module")
def tiny_bge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A BGE-M3-shaped folder: hidden 32, 2 layers, 2 heads, its own tokenizer."""
    folder = tmp_path_factory.mktemp("tiny-bge-m3")
    tokenizer = _tiny_tokenizer()
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.XLMRobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=HIDDEN,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=514,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )
    transformers.XLMRobertaModel(config, add_pooling_layer=False).save_pretrained(folder)
    # the heads, as FlagEmbedding saves and loads them (state dicts of torch Linear layers)
    colbert = torch.nn.Linear(HIDDEN, HIDDEN)
    torch.save(colbert.state_dict(), folder / "colbert_linear.pt")
    sparse = torch.nn.Linear(HIDDEN, 1)
    with torch.no_grad():
        sparse.weight.zero_()
        sparse.bias.fill_(SPARSE_BIAS)  # every token weighs exactly relu(0.5) = 0.5
    torch.save(sparse.state_dict(), folder / "sparse_linear.pt")
    return folder


@pytest.fixture(scope="module")
def bge(tiny_bge: Path) -> BGEM3Embedder:
    return BGEM3Embedder(tiny_bge, batch_size=4)


def test_folder_layout_is_accepted(tiny_bge: Path) -> None:
    check_bge_m3_dir(tiny_bge)
    assert embedder_identity(Settings(embedder="bge-m3", embedder_path=str(tiny_bge))) == (
        "bge-m3",
        HIDDEN,
    )


def test_dense_vectors(bge: BGEM3Embedder) -> None:
    assert isinstance(bge, Embedder)
    assert bge.name == "bge-m3"
    assert bge.dimension == HIDDEN
    vectors = bge.embed(CORPUS)
    assert vectors.shape == (len(CORPUS), HIDDEN)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # deterministic, and independent of batching
    assert np.allclose(bge.embed(CORPUS), vectors, atol=1e-6)
    assert np.allclose(bge.embed_query(CORPUS[2]), vectors[2], atol=1e-5)
    assert bge.embed([]).shape == (0, HIDDEN)


def test_sparse_weights_come_from_sparse_linear(bge: BGEM3Embedder) -> None:
    weights = bge.embed_sparse(CORPUS[:3])
    assert len(weights) == 3
    for text, item in zip(CORPUS[:3], weights, strict=True):
        assert item, text
        assert all(isinstance(k, str) and isinstance(v, float) for k, v in item.items())
        # zero weight + bias 0.5 in sparse_linear.pt: a random head would not give this
        assert set(item.values()) == {SPARSE_BIAS}
        # keyed by token strings that come from the text, not by ids
        assert all(token.strip().lower() in text.lower() for token in item if token.strip())
    single = bge.embed_sparse(["hello world"])
    assert isinstance(single, list) and len(single) == 1 and single[0]
    assert bge.embed_sparse([]) == []


def test_make_embedder_caches_the_model(tiny_bge: Path) -> None:
    settings = Settings(embedder="bge-m3", embedder_path=str(tiny_bge), embed_batch_size=4)
    first = make_embedder(settings)
    assert isinstance(first, BGEM3Embedder)
    assert make_embedder(settings) is first
    other = BGEM3Embedder(tiny_bge, batch_size=2)
    assert other._model is first._model  # loaded once per process


@pytest.mark.parametrize(
    ("missing", "named"),
    [
        ("sparse_linear.pt", "sparse_linear.pt"),
        ("colbert_linear.pt", "colbert_linear.pt"),
        ("config.json", "config.json"),
        ("tokenizer.json", "tokenizer"),
        ("model.safetensors", "weights"),
    ],
)
def test_incomplete_folder_is_refused(
    tiny_bge: Path, tmp_path: Path, missing: str, named: str
) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(tiny_bge, broken)
    (broken / missing).unlink()
    with pytest.raises(EmbedderUnavailable, match=named.replace(".", r"\.")):
        BGEM3Embedder(broken)
    assert ("bge-m3", str(broken.resolve())) not in embed_base._MODEL_CACHE


def test_missing_flagembedding(tiny_bge: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "FlagEmbedding", None)
    monkeypatch.setattr(embed_base, "_MODEL_CACHE", {})
    with pytest.raises(EmbedderUnavailable, match=r"pip install 'cogmem\[bge\]'"):
        BGEM3Embedder(tiny_bge)
