from __future__ import annotations

import stat
from pathlib import Path

import pytest

from cogmem.config import ConfigError, load_settings, read_config_file, write_config_file

pytestmark = pytest.mark.unit


@pytest.fixture
def cfg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("COGMEM_CONFIG", str(path))
    for name in (
        "NEO4J_URI",
        "NEO4J_USER",
        "NEO4J_USERNAME",
        "NEO4J_PASSWORD",
        "NEO4J_DATABASE",
        "COGMEM_GROUP",
        "COGMEM_EMBEDDER",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "COGMEM_LLM",
        "COGMEM_HOME",
    ):
        monkeypatch.delenv(name, raising=False)
    return path


def test_defaults_without_file_or_env(cfg: Path) -> None:
    s = load_settings()
    assert s.neo4j_uri == "bolt://127.0.0.1:7687"
    assert s.embedder == "minilm"
    assert s.llm == "none"
    assert s.neo4j_password is None


def test_precedence_file_then_env_then_flags(cfg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config_file(
        {"neo4j_uri": "bolt://file:1", "group": "from-file", "neo4j_database": "filedb"}
    )
    assert load_settings().neo4j_uri == "bolt://file:1"
    monkeypatch.setenv("NEO4J_URI", "bolt://env:2")
    s = load_settings()
    assert s.neo4j_uri == "bolt://env:2"
    assert s.group == "from-file"
    s = load_settings({"neo4j_uri": "bolt://flag:3", "group": None})
    assert s.neo4j_uri == "bolt://flag:3"
    assert s.group == "from-file"  # a None override does not erase a lower layer
    assert s.neo4j_database == "filedb"


def test_config_file_is_private_and_round_trips_odd_strings(cfg: Path) -> None:
    secret = 'pa"ss\\word\nwith newline'
    write_config_file({"neo4j_password": secret})
    assert stat.S_IMODE(cfg.stat().st_mode) == 0o600
    assert read_config_file()["neo4j_password"] == secret
    write_config_file({"neo4j_password": None})
    assert "neo4j_password" not in read_config_file()


def test_redacted_masks_secrets(cfg: Path) -> None:
    s = load_settings({"neo4j_password": "hunter2", "llm_api_key": "sk-x"})
    shown = s.redacted()
    assert "hunter2" not in str(shown)
    assert "sk-x" not in str(shown)
    assert shown["neo4j_password"] == "***"


def test_bad_file_and_bad_values_are_named(cfg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg.write_text("neo4j_uri = [unclosed\n")
    with pytest.raises(ConfigError, match=str(cfg)):
        load_settings()
    cfg.write_text('no_such_key = "x"\n')
    with pytest.raises(ConfigError, match="no_such_key"):
        load_settings()
    cfg.unlink()
    monkeypatch.setenv("COGMEM_EMBEDDER", "word2vec")
    with pytest.raises(ConfigError, match="embedder"):
        load_settings()
