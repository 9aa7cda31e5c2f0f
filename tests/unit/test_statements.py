from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cogmem import statements

pytestmark = pytest.mark.unit

FOLDERS = ("cypher", "operators", "consolidation")


def _source_files(root: Path) -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (root / folder).rglob("*.cypher"))


def test_every_cypher_file_loads_by_name(repo_root: Path) -> None:
    names = statements.all_names()
    assert len(names) == len(_source_files(repo_root))
    for name in names:
        text = statements.load(name)
        assert text and not text.rstrip().endswith(";")


def test_one_statement_per_file(repo_root: Path) -> None:
    for path in _source_files(repo_root):
        body = "\n".join(
            line for line in path.read_text().splitlines() if not line.lstrip().startswith("//")
        )
        assert ";" not in body.strip().rstrip(";"), f"{path} holds more than one statement"


def test_unknown_statement_is_a_clear_error() -> None:
    with pytest.raises(statements.StatementNotFound, match="no_such_thing"):
        statements.load("schema/no_such_thing")


def test_statements_never_interpolate_python_formatting(repo_root: Path) -> None:
    # Values arrive as $parameters; a "{name}"-style placeholder would mean string formatting.
    for path in _source_files(repo_root):
        text = path.read_text()
        assert not re.search(r"(?<![`:\w])\{[a-z_]+\}(?!\s*\))", text), path


@pytest.mark.slow
def test_wheel_ships_the_cypher_folders(repo_root: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(repo_root),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:  # build isolation fetches hatchling from the index instead
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "-w",
                str(tmp_path),
                str(repo_root),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheel = next(tmp_path.glob("cogmem-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        shipped = {n for n in zf.namelist() if n.endswith(".cypher")}
        zf.extractall(tmp_path / "site")
    expected = {
        f"cogmem/_statements/{p.relative_to(repo_root).as_posix()}"
        for p in _source_files(repo_root)
    }
    assert shipped == expected
    # The installed layout (no source checkout around it) finds every statement.
    probe = (
        "import cogmem.statements as s, json; names = s.all_names(); "
        "[s.load(n) for n in names]; "
        "print(json.dumps([len(names), s._roots()['cypher'].as_posix()]))"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert run.returncode == 0, run.stderr
    count, root = __import__("json").loads(run.stdout)
    assert count == len(expected)
    assert root.startswith((tmp_path / "site").as_posix())
