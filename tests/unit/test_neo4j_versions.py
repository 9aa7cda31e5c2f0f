"""Choosing the Java and the main class for a Neo4j version, without starting a server:
5.26 keeps Java 17 and CommunityEntryPoint; a 2026.x version gets a Java 21+ found under
JAVA_HOME, PATH or a JVM folder (the oldest that fits), or a one-line error naming what
was tried; the CLI's ``--version`` and ``--java-home`` reach the installer."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogmem.cli import app
from cogmem.server import java as javamod
from cogmem.server import local

pytestmark = pytest.mark.unit


def fake_jdk(root: Path, name: str, version: str, release: bool = True) -> Path:
    """A folder laid out like a JDK: ``bin/java`` (a script that prints ``java -version``'s
    first line to stderr, as a real one does) and, unless ``release`` is False, a
    ``release`` file."""
    home = root / name
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2026-01-20' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    if release:
        (home / "release").write_text(f'IMPLEMENTOR="test"\nJAVA_VERSION="{version}"\n')
    return home


@pytest.fixture
def no_path_java(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No ``java`` on PATH and no JAVA_HOME, so only what a test lays out is found."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("JAVA_HOME", raising=False)


def test_versions_map_to_their_java_range() -> None:
    lts = javamod.java_range("5.26.30")
    assert (lts.low, lts.high) == (17, 21)
    assert lts.admits(17) and lts.admits(21) and not lts.admits(25)
    cal = javamod.java_range("2026.08.1")
    assert (cal.low, cal.high) == (21, None)
    assert cal.admits(25) and not cal.admits(17)
    assert javamod.java_range("2025.01.0").low == 21
    with pytest.raises(ValueError):
        javamod.java_range("latest")


def test_2026_gets_the_oldest_java_21_plus_of_the_jvm_folder(
    tmp_path: Path, no_path_java: None
) -> None:
    root = tmp_path / "jvm"
    fake_jdk(root, "java-17", "17.0.15")
    fake_jdk(root, "temurin-25", "25.0.3")
    fake_jdk(root, "temurin-21", "21.0.7", release=False)  # read from `java -version`
    found = javamod.find_java(javamod.java_range("2026.08.1"), jvm_root=root)
    assert found.major == 21
    assert found.home == str(root / "temurin-21")
    lts = javamod.find_java(javamod.java_range("5.26.30"), jvm_root=root)
    assert lts.major == 17


def test_java_home_comes_first_when_it_fits(
    tmp_path: Path, no_path_java: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "jvm"
    fake_jdk(root, "temurin-21", "21.0.7")
    home25 = fake_jdk(tmp_path / "elsewhere", "jdk-25", "25.0.1")
    monkeypatch.setenv("JAVA_HOME", str(home25))
    assert javamod.find_java(javamod.java_range("2026.08.1"), jvm_root=root).major == 25
    # a JAVA_HOME too new for 5.26 is passed over, not used
    fake_jdk(root, "java-17", "17.0.15")
    assert javamod.find_java(javamod.java_range("5.26.30"), jvm_root=root).major == 17


def test_no_fitting_java_is_one_line_naming_what_was_tried(
    tmp_path: Path, no_path_java: None
) -> None:
    root = tmp_path / "jvm"
    fake_jdk(root, "java-17", "17.0.15")
    with pytest.raises(javamod.JavaNotFound) as caught:
        javamod.find_java(javamod.java_range("2026.08.1"), jvm_root=root)
    message = str(caught.value)
    assert "\n" not in message
    assert "Java 21 or newer" in message
    assert "java-17 (Java 17)" in message
    assert "--java-home" in message


def test_an_explicit_java_home_that_does_not_fit_is_refused(tmp_path: Path) -> None:
    old = fake_jdk(tmp_path, "java-17", "17.0.15")
    with pytest.raises(javamod.JavaNotFound, match="is Java 17; this Neo4j needs Java 21"):
        javamod.find_java(javamod.java_range("2026.08.1"), java_home=old)
    with pytest.raises(javamod.JavaNotFound, match="has no bin/java"):
        javamod.find_java(javamod.java_range("2026.08.1"), java_home=tmp_path / "nothing")


def test_this_machine_runs_5_26_on_java_17_or_21() -> None:
    """The default version must keep its Java here (CI runs the 5.26 suite on it)."""
    found = local.java_for(local.NEO4J_VERSION)
    assert 17 <= found.major <= 21


def jar_with_service(path: Path, body: str | None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("org/neo4j/Dummy.class", b"\xca\xfe\xba\xbe")
        if body is not None:
            zf.writestr(local.ENTRY_POINT_SERVICE, body)
    return path


def test_entry_point_is_read_from_the_neo4j_jar(tmp_path: Path) -> None:
    jar_with_service(
        tmp_path / "neo4j-2026.08.1.jar", "# comment\norg.neo4j.server.Neo4jCommunity\n"
    )
    assert local.entry_point(tmp_path, "2026.08.1") == "org.neo4j.server.Neo4jCommunity"
    jar_with_service(tmp_path / "neo4j-5.0.0.jar", None)
    assert local.entry_point(tmp_path, "5.0.0") == local.ENTRY_POINT
    assert local.entry_point(tmp_path, "9.9.9") == local.ENTRY_POINT  # no jar at all


def test_installed_jars_name_the_entry_point_each_version_really_has() -> None:
    """Against the jars Maven really resolved (5.26 always is on a machine that ran the
    suite; 2026.08.1 where ``cogmem neo4j install --version 2026.08.1`` was run)."""
    from cogmem.config import load_settings

    home = load_settings().home
    expected = {"5.26.30": "org.neo4j.server.CommunityEntryPoint"}
    expected["2026.08.1"] = "org.neo4j.server.Neo4jCommunity"
    checked = 0
    for version, main_class in expected.items():
        if local.is_installed(home, version):
            assert (
                local.entry_point(local.install_dir(home, version) / "lib", version) == main_class
            )
            checked += 1
    if checked == 0:
        pytest.skip("no Neo4j installed in $COGMEM_HOME")


def test_cli_install_refuses_a_java_home_too_old_for_2026(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COGMEM_HOME", str(tmp_path / "home"))
    old = fake_jdk(tmp_path, "java-17", "17.0.15")
    result = CliRunner().invoke(
        app, ["neo4j", "install", "--version", "2026.08.1", "--java-home", str(old)]
    )
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "Neo4j 2026.08.1" in text and "is Java 17; this Neo4j needs Java 21 or newer" in text
    assert not (tmp_path / "home" / "neo4j" / "2026.08.1").exists()


def test_cli_start_names_the_version_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COGMEM_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(
        app,
        [
            "neo4j",
            "start",
            "--no-install",
            "--no-save",
            "--no-auth",
            "--dir",
            str(tmp_path / "inst"),
            "--version",
            "2026.08.1",
            "--bolt-port",
            str(local.free_port()),
            "--http-port",
            str(local.free_port()),
        ],
    )
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "Neo4j 2026.08.1 is not installed" in text
    assert "cogmem neo4j install --version 2026.08.1" in text
