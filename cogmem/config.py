"""Settings: defaults < config file < environment < explicit overrides (CLI flags).

One set of names reaches whichever Neo4j the user has: ``NEO4J_URI``, ``NEO4J_USER``,
``NEO4J_PASSWORD``, ``NEO4J_DATABASE``. The config file is TOML with the field names of
:class:`Settings` as top-level keys; it may hold a password, so it is written mode 0600.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

ENV_NAMES: dict[str, tuple[str, ...]] = {
    "neo4j_uri": ("NEO4J_URI",),
    "neo4j_user": ("NEO4J_USER", "NEO4J_USERNAME"),
    "neo4j_password": ("NEO4J_PASSWORD",),
    "neo4j_database": ("NEO4J_DATABASE",),
    "group": ("COGMEM_GROUP",),
    "embedder": ("COGMEM_EMBEDDER",),
    "embedder_path": ("COGMEM_EMBEDDER_PATH",),
    "embed_batch_size": ("COGMEM_EMBED_BATCH_SIZE",),
    "embed_threads": ("COGMEM_EMBED_THREADS",),
    "embed_backend": ("COGMEM_EMBED_BACKEND",),
    "vector_cache_mb": ("COGMEM_VECTOR_CACHE_MB",),
    "search_cache": ("COGMEM_SEARCH_CACHE",),
    "vector_indexes": ("COGMEM_VECTOR_INDEXES",),
    "search_concurrency": ("COGMEM_SEARCH_CONCURRENCY",),
    "llm": ("COGMEM_LLM",),
    "llm_base_url": ("COGMEM_LLM_BASE_URL", "OPENAI_BASE_URL"),
    "llm_model": ("COGMEM_LLM_MODEL",),
    "llm_api_key": ("COGMEM_LLM_API_KEY", "OPENAI_API_KEY"),
    "llm_embed_model": ("COGMEM_LLM_EMBED_MODEL",),
    "llm_timeout_s": ("COGMEM_LLM_TIMEOUT",),
    "llm_max_retries": ("COGMEM_LLM_MAX_RETRIES",),
    "llm_max_tokens": ("COGMEM_LLM_MAX_TOKENS",),
    "home": ("COGMEM_HOME",),
}


NOT_EMPTY = frozenset({"neo4j_uri", "neo4j_user", "neo4j_database"})
"""Settings whose variables, set but empty, are an error (``NEO4J_URI=""`` would otherwise
reach the default server without a word); other empty variables count as unset."""


class ConfigError(ValueError):
    """A setting is missing or malformed; the message says which and where."""


GROUP_CHARS = "letters, digits and _ . - : @ +"
GROUP_PATTERN = re.compile(r"[A-Za-z0-9_.:@+-]{1,128}")
"""A group name: 1-128 of these characters (surrounding blanks are trimmed)."""
URI_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def check_group(value: object) -> str:
    """A valid group name (trimmed), or ValueError saying what is wrong with it."""
    if not isinstance(value, str):
        raise ValueError(f"a group name is text, not {type(value).__name__}")
    name = value.strip()
    if not name:
        raise ValueError("a group name cannot be empty")
    if not GROUP_PATTERN.fullmatch(name):
        raise ValueError(f"group name {name!r} is not allowed: use 1-128 {GROUP_CHARS} (no spaces)")
    return name


def check_uri(value: str) -> str:
    """A Bolt URI, or ValueError naming the fix (a missing scheme, the HTTP port)."""
    uri = value.strip()
    scheme, sep, rest = uri.partition("://")
    if not sep:
        raise ValueError(f"{uri!r} has no scheme: use bolt://{uri} (or neo4j://{uri})")
    if scheme.lower() in ("http", "https"):
        host = rest.split("/", 1)[0].rsplit(":", 1)[0] or "localhost"
        raise ValueError(
            f"{uri!r} is the HTTP address (Neo4j Browser); cogmem talks Bolt: "
            f"use bolt://{host}:7687 (the server's Bolt port)"
        )
    if scheme.lower() not in URI_SCHEMES:
        raise ValueError(f"{uri!r}: unknown scheme {scheme!r}; use one of {', '.join(URI_SCHEMES)}")
    if not rest.strip("/"):
        raise ValueError(f"{uri!r} names no host")
    return uri


def default_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cogmem"


def config_path() -> Path:
    explicit = os.environ.get("COGMEM_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config"))
    return base / "cogmem" / "config.toml"


class Settings(BaseModel):
    """Everything cogmem can be told. Field names are also the config-file keys."""

    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str = "neo4j"
    group: str = "default"
    embedder: Literal["minilm", "mpnet", "bge-m3", "openai"] = "minilm"
    embedder_path: str | None = None
    embed_batch_size: int = Field(default=64, ge=1, le=4096)
    embed_threads: int = Field(default=0, ge=0, le=256)
    #: how MiniLM and mpnet run: auto (default: batches in numpy, single queries and live
    #: turns on ONNX Runtime, a core dependency; the same vectors), numpy, ONNX Runtime
    #: float32, or (MiniLM only) ONNX Runtime dynamic int8 (other vectors: the embedder's
    #: name becomes "minilm-int8")
    embed_backend: Literal["auto", "numpy", "onnx", "onnx-int8"] = "auto"
    #: in-process copies of groups' vectors for search (cogmem.retrieval.vectors), in MiB
    vector_cache_mb: int = Field(default=512, ge=1, le=1 << 20)
    #: how search reads a group: ``auto`` (default) through Neo4j's indexes until the
    #: process holds a copy of the group, which its first search has read in the
    #: background (if it fits ``vector_cache_mb``); ``eager`` reads the copy before the
    #: first search; ``off`` always asks Neo4j (no copy: many small processes, or to
    #: compare)
    search_cache: Literal["auto", "eager", "off"] = "auto"
    #: Neo4j's HNSW vector indexes over Memory and Turn embeddings (created by
    #: ``cogmem init`` and by a Memory's first use of a store): search asks them for a
    #: group too large to scan exactly. Each is updated at every commit that writes
    #: vectors. False: not created (``cogmem init --no-vector-indexes`` drops them).
    vector_indexes: bool = True
    #: searches that run at once in one process (the Memories sharing its clients); more
    #: wait their turn, first come first served. Search is mostly Python, held by one lock
    #: (the GIL): past a few at once, threads only thrash (benchmarks/results/load_test.md).
    #: 0: the cores, at least 2.
    search_concurrency: int = Field(default=0, ge=0, le=1024)
    llm: Literal["none", "openai"] = "none"
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: str | None = None
    llm_embed_model: str = "text-embedding-3-small"
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_retries: int = Field(default=3, ge=0, le=10)
    llm_max_tokens: int | None = Field(default=None, gt=0)  # cap on an answer's tokens
    home: Path = Field(default_factory=default_home)

    @field_validator("group", mode="before")
    @classmethod
    def _group(cls, value: object) -> str:
        return check_group(value)

    @field_validator("neo4j_uri")
    @classmethod
    def _uri(cls, value: str) -> str:
        return check_uri(value)

    def redacted(self) -> dict[str, Any]:
        """The settings as a dict with secrets masked, for display and logs."""
        data = self.model_dump(mode="json")
        for key in ("neo4j_password", "llm_api_key"):
            if data.get(key):
                data[key] = "***"
        return data


def read_config_file(path: Path | None = None) -> dict[str, Any]:
    """The config file's settings ({} when there is none yet). ``COGMEM_CONFIG`` naming a
    file in a folder that does not exist is an error (a typo would otherwise go unseen);
    a missing file in an existing folder is one cogmem has not written yet (``cogmem neo4j
    start`` keeps the generated password there)."""
    explicit = path is None and bool(os.environ.get("COGMEM_CONFIG"))
    path = path or config_path()
    if explicit and not path.parent.is_dir():
        raise ConfigError(
            f"COGMEM_CONFIG names {path}, but its folder {path.parent} does not exist"
        )
    if explicit and path.exists() and not path.is_file():
        raise ConfigError(f"COGMEM_CONFIG names {path}, which is not a file")
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    unknown = sorted(set(data) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"config file {path}: unknown key(s) {', '.join(unknown)}")
    return data


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value)
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def write_config_file(updates: dict[str, Any], path: Path | None = None) -> Path:
    """Merge ``updates`` into the config file (``None`` removes a key); mode 0600."""
    path = path or config_path()
    data = read_config_file(path)
    for key, value in updates.items():
        if key not in Settings.model_fields:
            raise ConfigError(f"unknown setting {key!r}")
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(f"{k} = {_toml_value(v)}\n" for k, v in sorted(data.items()))
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("# cogmem settings (may hold credentials: keep it private)\n" + body)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return path


def _from_env(
    origin: dict[str, str] | None = None, empty: dict[str, str] | None = None
) -> dict[str, Any]:
    """The settings the environment gives; ``empty`` gets the :data:`NOT_EMPTY` fields
    whose variable is set but blank (and the variable's name)."""
    found: dict[str, Any] = {}
    for field, names in ENV_NAMES.items():
        for name in names:
            value = os.environ.get(name)
            if value is not None and not value.strip() and field in NOT_EMPTY:
                if empty is not None:
                    empty.setdefault(field, name)
                continue
            if value not in (None, ""):
                found[field] = value
                if origin is not None:
                    origin[field] = f"environment variable {name}"
                break
    return found


def load_settings(overrides: dict[str, Any] | None = None, path: Path | None = None) -> Settings:
    """Resolve settings from defaults, the config file, the environment and overrides.

    A bad value is a :class:`ConfigError` that names the setting and where it came from
    (the config file, an environment variable, or the command line / caller)."""
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}
    from_file = read_config_file(path)
    merged.update(from_file)
    origin.update({k: f"config file {path or config_path()}" for k in from_file})
    empty: dict[str, str] = {}
    from_env = _from_env(origin, empty)
    merged.update(from_env)
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    for field, name in empty.items():
        if field not in given and field not in from_env:
            default = Settings.model_fields[field].default
            raise ConfigError(
                f"{name} is set but empty: unset it (default {default}) or give a value"
            )
    merged.update(given)
    origin.update({k: "the command line or the caller" for k in given})
    try:
        return Settings(**merged)
    except ValidationError as exc:
        problems = "; ".join(_problem(err, origin) for err in exc.errors())
        raise ConfigError(f"invalid settings: {problems}") from exc


def _problem(err: Any, origin: dict[str, str]) -> str:
    field = ".".join(str(p) for p in err["loc"])
    message = str(err["msg"]).removeprefix("Value error, ")
    where = origin.get(str(err["loc"][0])) if err["loc"] else None
    return f"{field} (from {where}): {message}" if where else f"{field}: {message}"
