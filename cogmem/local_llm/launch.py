"""``python -m cogmem.local_llm.launch …``: llama-cpp-python's server, with llama.cpp's
extra weight buffer types off.

Those buffer types (weight repacking, Intel AMX) are chosen from what the CPU advertises; on
a virtual machine that advertises AMX without enabling its tile state, a natively built
llama.cpp dies with SIGSEGV (``ldtilecfg`` in ``libggml-cpu.so``) on the first token. The
server exposes no switch for it, so the default model parameters are wrapped before the
server's own ``__main__`` runs with the same arguments.
"""

from __future__ import annotations

import runpy
from typing import Any


def _without_extra_buffer_types() -> None:
    import llama_cpp.llama_cpp as bindings

    default = bindings.llama_model_default_params

    def params() -> Any:
        value = default()
        value.use_extra_bufts = False
        return value

    bindings.llama_model_default_params = params


if __name__ == "__main__":
    _without_extra_buffer_types()
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
