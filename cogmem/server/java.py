"""Which Java runs which Neo4j: 5.x runs on Java 17 or 21, the calendar versions (2025.x,
2026.x) on Java 21 or newer.

``find_java`` looks, in order, at an explicit ``--java-home``, ``$JAVA_HOME``, the ``java`` on
``PATH`` and the JDKs under ``/usr/lib/jvm``, reads each one's major version from its
``release`` file (or ``java -version`` where that file is missing), and returns the first
that fits — among the ``/usr/lib/jvm`` ones the oldest that does, so a server runs on the Java
closest to the one it was built for.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from pydantic import BaseModel

JVM_ROOT = Path("/usr/lib/jvm")

_RELEASE_VERSION = re.compile(r'^JAVA_VERSION="([^"]+)"', re.MULTILINE)
_VERSION_OUTPUT = re.compile(r'version "([^"]+)"')


class JavaNotFound(RuntimeError):
    """No Java new enough for the requested Neo4j version; the message says what was tried."""


class Java(BaseModel):
    """One Java installation: its home, its ``java`` binary and its major version."""

    home: str
    binary: str
    major: int


class JavaRange(BaseModel):
    """The Java major versions a Neo4j version runs on: ``low`` to ``high`` (None: no cap)."""

    low: int
    high: int | None = None

    def admits(self, major: int) -> bool:
        return major >= self.low and (self.high is None or major <= self.high)

    def describe(self) -> str:
        if self.high is None:
            return f"Java {self.low} or newer"
        return f"Java {self.low} to {self.high}"


def java_range(neo4j_version: str) -> JavaRange:
    """The Java versions that run ``neo4j_version``.

    Neo4j 5.x (semantic versions) runs on Java 17 and 21; the calendar versions (2025.01
    onward, e.g. 2026.08.1) need Java 21 or newer.
    """
    head = neo4j_version.split(".", 1)[0]
    if not head.isdigit():
        raise ValueError(f"not a Neo4j version: {neo4j_version!r}")
    if int(head) >= 2025:
        return JavaRange(low=21)
    return JavaRange(low=17, high=21)


def _major_of(version: str) -> int | None:
    """``"17.0.15"`` → 17, ``"25"`` → 25, ``"1.8.0_392"`` → 8."""
    parts = version.split(".")
    try:
        major = int(parts[0])
        if major == 1 and len(parts) > 1:
            major = int(parts[1])
    except ValueError:
        return None
    return major


def inspect(home: Path) -> Java | None:
    """The Java installed at ``home`` (a folder with ``bin/java``), or None if there is none."""
    binary = home / "bin" / "java"
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        return None
    version: str | None = None
    release = home / "release"
    if release.is_file():
        match = _RELEASE_VERSION.search(release.read_text(encoding="utf-8", errors="replace"))
        if match:
            version = match.group(1)
    if version is None:
        try:
            proc = subprocess.run(
                [str(binary), "-version"], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        match = _VERSION_OUTPUT.search(proc.stderr + proc.stdout)
        if match is None:
            return None
        version = match.group(1)
    major = _major_of(version)
    if major is None:
        return None
    return Java(home=str(home), binary=str(binary), major=major)


def _path_java_home() -> Path | None:
    found = shutil.which("java")
    if found is None:
        return None
    return Path(found).resolve().parent.parent


def find_java(
    wanted: JavaRange,
    java_home: Path | None = None,
    jvm_root: Path = JVM_ROOT,
    env: dict[str, str] | None = None,
) -> Java:
    """The Java to run a server that needs a Java in ``wanted``; raises :class:`JavaNotFound`.

    An explicit ``java_home`` must itself fit (it is never silently replaced).
    """
    if java_home is not None:
        java = inspect(java_home)
        if java is None:
            raise JavaNotFound(f"--java-home {java_home} has no bin/java")
        if not wanted.admits(java.major):
            raise JavaNotFound(
                f"--java-home {java_home} is Java {java.major}; this Neo4j needs "
                f"{wanted.describe()}"
            )
        return java
    environ = os.environ if env is None else env
    seen: list[str] = []
    first: list[Path] = []
    if environ.get("JAVA_HOME"):
        first.append(Path(environ["JAVA_HOME"]))
    path_home = _path_java_home()
    if path_home is not None:
        first.append(path_home)
    for home in first:
        java = inspect(home)
        if java is not None:
            seen.append(f"{home} (Java {java.major})")
            if wanted.admits(java.major):
                return java
    pool: list[Java] = []
    if jvm_root.is_dir():
        for home in sorted(jvm_root.iterdir()):
            if home.is_symlink():
                continue
            java = inspect(home)
            if java is not None:
                seen.append(f"{home} (Java {java.major})")
                if wanted.admits(java.major):
                    pool.append(java)
    if pool:
        return min(pool, key=lambda j: (j.major, j.home))
    tried = "; ".join(seen) if seen else "none found"
    raise JavaNotFound(
        f"this Neo4j needs {wanted.describe()} and none was found (tried JAVA_HOME, "
        f"java on PATH, {jvm_root}/*: {tried}); install one or pass --java-home"
    )
