"""llama-cpp-python's OpenAI-compatible server over a verified GGUF file, as a child process.

:class:`LocalLLMServer` starts ``python -m llama_cpp.server`` on loopback, waits until
``GET /v1/models`` answers, and stops it again (a context manager). cogmem then talks to it
through the same :class:`~cogmem.llm.LLMClient` as to any OpenAI-compatible endpoint:
:meth:`LocalLLMServer.env` gives the settings (``COGMEM_LLM=openai`` and the base URL).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import IO

from cogmem.local_llm.weights import VerifiedModel

LLAMA_CPP_REQUIREMENT = "llama-cpp-python[server]==0.3.36"


class LocalLLMError(RuntimeError):
    """The local server could not be started (not installed, exited, never answered)."""


def llama_cpp_installed() -> bool:
    """Whether llama-cpp-python and its server's own dependencies can be imported."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")
    )


def require_llama_cpp() -> None:
    if not llama_cpp_installed():
        raise LocalLLMError(
            "llama-cpp-python's server is not installed: pip install "
            f"'{LLAMA_CPP_REQUIREMENT}' (or COGMEM_EXTRAS=dev,llm scripts/setup; it builds "
            "from source, about 10 minutes on 2 cores)"
        )


def default_threads() -> int:
    """Half the cores (llama.cpp's own default), at most 4: its threads spin while they
    wait, and on a busy 2-core machine two of them ran at 4.6 s a token, one at ~0.05 s."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


class LocalLLMServer:
    """One llama.cpp server process serving one verified model on ``host:port``."""

    def __init__(
        self,
        model: VerifiedModel,
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        context: int = 2048,
        threads: int | None = None,
        log_path: Path | None = None,
    ) -> None:
        from cogmem.server.local import free_port

        self.model = model
        self.host = host
        self.port = port or free_port()
        self.context = context
        self.threads = threads or default_threads()
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "cogmem.local_llm.launch",  # llama_cpp.server, extra buffer types off
            "--model",
            str(self.model.path),
            "--model_alias",
            self.model.name,
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.context),
            "--n_threads",
            str(self.threads),
            "--n_threads_batch",
            str(self.threads),
        ]

    def env(self) -> dict[str, str]:
        """The settings that point cogmem at this server."""
        return {
            "COGMEM_LLM": "openai",
            "COGMEM_LLM_BASE_URL": self.base_url,
            "COGMEM_LLM_MODEL": self.model.name,
            "COGMEM_LLM_MAX_RETRIES": "1",
            "COGMEM_LLM_MAX_TOKENS": "512",
        }

    def start(self, timeout_s: float = 120.0) -> LocalLLMServer:
        require_llama_cpp()
        if self.process is not None:
            return self
        out: int | IO[bytes] = subprocess.DEVNULL
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = self.log_path.open("ab")
            out = self._log
        self.process = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            self.wait_ready(timeout_s)
            self.sanity_check(timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:
                body = json.loads(response.read())
        except (OSError, urllib.error.URLError, ValueError):
            return False
        return isinstance(body, dict) and bool(body.get("data"))

    def wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise LocalLLMError(
                    f"the llama.cpp server exited with code {self.process.returncode} before "
                    f"it answered{self._log_hint()}"
                )
            if self.ready():
                return
            time.sleep(0.25)
        raise LocalLLMError(
            f"the llama.cpp server did not answer on {self.base_url} within {timeout_s:.0f}s"
            f"{self._log_hint()}"
        )

    def sanity_check(self, timeout_s: float) -> str:
        """One short completion: the weights load *and* generate (a llama.cpp built for
        the wrong CPU answers ``/v1/models`` and then dies on the first token)."""
        body = json.dumps(
            {
                "model": self.model.name,
                "messages": [{"role": "user", "content": "Say OK."}],
                "max_tokens": 4,
                "temperature": 0,
            }
        ).encode()
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=body,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                answer = json.loads(response.read())
            text = answer["choices"][0]["message"]["content"]
        except (OSError, urllib.error.URLError, ValueError, KeyError, IndexError, TypeError):
            time.sleep(0.5)
            code = self.process.poll() if self.process is not None else None
            died = f" (the server exited with code {code})" if code is not None else ""
            raise LocalLLMError(
                f"the llama.cpp server did not complete a first test prompt{died}; if it died "
                "with -11, rebuild llama-cpp-python for this CPU: CMAKE_ARGS='-DGGML_NATIVE=OFF "
                "-DGGML_AVX512=OFF' pip install --no-cache-dir --force-reinstall "
                f"'{LLAMA_CPP_REQUIREMENT}'{self._log_hint()}"
            ) from None
        if not isinstance(text, str):
            raise LocalLLMError("the llama.cpp server's first test completion had no text")
        return text

    def _log_hint(self) -> str:
        return f" (log: {self.log_path})" if self.log_path is not None else ""

    def wait(self) -> int:
        """Block until the server exits (``cogmem llm serve`` in the foreground)."""
        assert self.process is not None
        return self.process.wait()

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        log, self._log = self._log, None
        if log is not None:
            with contextlib.suppress(OSError):
                log.close()

    def __enter__(self) -> LocalLLMServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
