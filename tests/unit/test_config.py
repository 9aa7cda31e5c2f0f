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


@pytest.mark.parametrize(
    ("uri", "words"),
    [
        ("localhost:7687", ("NEO4J_URI", "no scheme", "bolt://localhost:7687")),
        ("http://127.0.0.1:7474", ("NEO4J_URI", "HTTP", "bolt://127.0.0.1:7687")),
        ("gopher://x:1", ("NEO4J_URI", "unknown scheme")),
        ("bolt://", ("NEO4J_URI", "no host")),
    ],
)
def test_bad_uris_name_the_fix_and_where_they_came_from(
    cfg: Path, monkeypatch: pytest.MonkeyPatch, uri: str, words: tuple[str, ...]
) -> None:
    monkeypatch.setenv("NEO4J_URI", uri)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert all(w in str(caught.value) for w in words), str(caught.value)
    assert "\n" not in str(caught.value)


def test_good_uris_pass(cfg: Path) -> None:
    for uri in ("bolt://h:7687", "neo4j+s://x.databases.neo4j.io", "bolt+ssc://10.0.0.1"):
        assert load_settings({"neo4j_uri": uri}).neo4j_uri == uri


def test_group_names_are_trimmed_and_validated_everywhere(
    cfg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_settings({"group": "  alice  "}).group == "alice"
    assert load_settings({"group": "team.a:bob@x+1_2-3"}).group == "team.a:bob@x+1_2-3"
    for bad, words in (
        ("", "empty"),
        ("   ", "empty"),
        ("a b", "not allowed"),
        ("a/b", "not allowed"),
        ("x" * 129, "not allowed"),
    ):
        with pytest.raises(ConfigError, match=words):
            load_settings({"group": bad})
    write_config_file({"group": "from file"})
    with pytest.raises(ConfigError, match="config file"):
        load_settings()
    cfg.unlink()
    monkeypatch.setenv("COGMEM_GROUP", "")  # an empty variable is unset, not a group ""
    assert load_settings().group == "default"
    monkeypatch.setenv("COGMEM_GROUP", "a b")
    with pytest.raises(ConfigError, match="COGMEM_GROUP"):
        load_settings()


def test_memory_refuses_a_bad_group_without_connecting(cfg: Path) -> None:
    from cogmem.api import Memory, QuestionError, check_question

    mem = Memory(load_settings({"neo4j_uri": "bolt://127.0.0.1:1"}))
    with pytest.raises(ConfigError, match="empty"):
        mem.for_group(" ")
    assert mem.for_group(" bob ").group == "bob"
    with pytest.raises(QuestionError, match="question is empty"):
        mem.search("  ")
    with pytest.raises(ValueError, match="question is empty"):
        check_question("")
    mem.close()


def test_cogmem_config_in_a_missing_folder_is_refused_with_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = tmp_path / "no-such-folder" / "config.toml"
    monkeypatch.setenv("COGMEM_CONFIG", str(wrong))
    with pytest.raises(ConfigError, match="no-such-folder"):
        load_settings()
    monkeypatch.setenv("COGMEM_CONFIG", str(tmp_path))  # a folder, not a file
    with pytest.raises(ConfigError, match="not a file"):
        load_settings()
    monkeypatch.setenv("COGMEM_CONFIG", str(tmp_path / "config.toml"))  # not written yet
    assert load_settings().group == "default"


def test_an_empty_neo4j_setting_is_an_error_naming_it(
    cfg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On main `NEO4J_URI=""` fell back to bolt://127.0.0.1:7687 without a word."""
    for name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_DATABASE"):
        monkeypatch.setenv(name, "  " if name == "NEO4J_USER" else "")
        with pytest.raises(ConfigError, match=f"{name} is set but empty"):
            load_settings()
        # a value given by the caller (a command-line flag) wins over the empty variable
        field = name.lower()
        value = "bolt://127.0.0.1:7999" if field == "neo4j_uri" else "x"
        assert getattr(load_settings({field: value}), field) == value
        monkeypatch.delenv(name)
    monkeypatch.setenv("NEO4J_USER", "")
    monkeypatch.setenv("NEO4J_USERNAME", "bob")  # the other name of it gives one
    assert load_settings().neo4j_user == "bob"
