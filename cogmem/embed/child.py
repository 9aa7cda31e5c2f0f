"""Build a model file in a child process, so that the float weights, the graph and any
quantiser (several hundred MiB at peak) never raise this process's peak memory."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)


def write_atomic(dest: Path, data: bytes) -> None:
    """Write ``data`` to ``dest`` through a temporary file in the same folder: a reader
    never sees half a model."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp_name, dest)
    finally:
        Path(tmp_name).unlink(missing_ok=True)


def build_in_child(
    module: str, function: str, args: list[str], dest: Path, here: Callable[[], None]
) -> None:
    """Run ``module.function(Path(args[0]), Path(args[1]), *args[2:])`` in a child Python,
    which must leave ``dest``; when the child cannot run or leaves no file, call ``here``
    (the same build in this process) instead."""
    code = (
        "import logging, sys; from pathlib import Path; logging.disable(logging.WARNING); "
        f"from {module} import {function}; "
        f"{function}(Path(sys.argv[1]), Path(sys.argv[2]), *sys.argv[3:])"
    )
    try:
        result = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("cannot build the model in a child process (%s): building here", exc)
        here()
        return
    if result.returncode != 0 or not dest.is_file():
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        log.warning("building the model in a child failed (%s): building here", tail[0])
        here()
