"""The one place that calls an LLM (any OpenAI-compatible endpoint, via the ``openai`` client)."""

from __future__ import annotations

from typing import Any

from cogmem.config import ConfigError, Settings


def openai_client(settings: Settings) -> Any:
    """An ``openai.OpenAI`` client for the configured base URL, key, timeout and retries."""
    from openai import OpenAI

    if not settings.llm_base_url and not settings.llm_api_key:
        raise ConfigError(
            "the openai backend needs COGMEM_LLM_BASE_URL (any OpenAI-compatible server: "
            "vLLM, Ollama, llama.cpp) or COGMEM_LLM_API_KEY for api.openai.com"
        )
    return OpenAI(
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key or "not-needed",
        timeout=settings.llm_timeout_s,
        max_retries=0,  # cogmem retries itself, with backoff and counts
    )
