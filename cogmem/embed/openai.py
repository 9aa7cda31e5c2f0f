"""Vectors from any OpenAI-compatible ``/embeddings`` endpoint.

The HTTP requests, their retries, backoff and timeouts are :class:`~cogmem.llm.LLMClient`'s
(the one place that talks to such an endpoint); :class:`OpenAIEmbedder` batches the texts,
checks the dimension and normalises the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from cogmem.embed.base import l2_normalise

if TYPE_CHECKING:
    from cogmem.llm import LLMClient

#: Output dimensions of OpenAI's embedding models, so that the identity of an ``openai``
#: embedder is known without a network call.
OPENAI_EMBED_DIMS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbedder:
    """Vectors of ``model`` (default: the client's ``llm_embed_model``) through ``client``.

    The client is the caller's: this embedder neither builds nor closes it.
    """

    def __init__(
        self, client: LLMClient, model: str | None = None, batch_size: int | None = None
    ) -> None:
        self.client = client
        self.model = model or client.settings.llm_embed_model
        self.name = f"openai:{self.model}"
        self.batch_size = batch_size or client.settings.embed_batch_size
        self._dimension: int | None = OPENAI_EMBED_DIMS.get(self.model)

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self._create(["dimension probe"]).shape[1])
        return self._dimension

    def _create(self, batch: list[str]) -> np.ndarray:
        rows = self.client.embed(batch, model=self.model)
        vectors = np.asarray(rows, dtype=np.float32)
        if self._dimension is None:
            self._dimension = int(vectors.shape[1])
        elif vectors.shape[1] != self._dimension:
            raise RuntimeError(
                f"{self.name} returned {vectors.shape[1]}-d vectors, expected {self._dimension}"
            )
        return vectors

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for one")
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        parts = [
            self._create(list(texts[i : i + self.batch_size]))
            for i in range(0, len(texts), self.batch_size)
        ]
        return l2_normalise(np.concatenate(parts, axis=0))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]
