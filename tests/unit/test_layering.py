"""The CLI and the benchmarks are shells over the Python API (:class:`cogmem.api.Memory`).

Every module under ``cogmem/cli/``, ``cogmem/bench/`` and ``benchmarks/`` is parsed (not
imported) and may not
- import ``cogmem.store`` (in any spelling) or construct a ``Store``;
- import a leading-underscore name (or module) of another cogmem module;
- reach for a private attribute of another object (``x._driver``, ``getattr(x, "_y")``);
- load modules by name (``importlib.import_module``, ``__import__``), which hides imports
  from this check (``importlib.resources`` for data files is fine).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("cogmem/cli", "cogmem/bench", "benchmarks")
FORBIDDEN_MODULES = ("cogmem.store",)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_of(path: Path) -> str:
    """``cogmem/cli/data.py`` → ``cogmem.cli.data`` (``__init__`` → the package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a ``from … import`` names, with relative imports resolved."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _forbidden_module(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in FORBIDDEN_MODULES)


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """What in ``source`` (the text of ``module``) breaks the layering rules."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        where = f"{module}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _forbidden_module(alias.name):
                    found.append(f"{where} imports {alias.name}")
                elif alias.name.startswith("cogmem") and any(
                    _private(p) for p in alias.name.split(".")
                ):
                    found.append(f"{where} imports the private module {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            source_module = _absolute(node, module, is_package)
            if source_module == "importlib" and any(a.name == "import_module" for a in node.names):
                found.append(f"{where} imports importlib.import_module")
            if not source_module.startswith("cogmem"):
                continue
            if _forbidden_module(source_module):
                found.append(f"{where} imports from {source_module}")
            if any(_private(p) for p in source_module.split(".")):
                found.append(f"{where} imports from the private module {source_module}")
            for alias in node.names:
                full = f"{source_module}.{alias.name}"
                if _forbidden_module(full):
                    found.append(f"{where} imports {full}")
                elif _private(alias.name):
                    found.append(f"{where} imports the private name {full}")
        elif isinstance(node, ast.Attribute):
            owner = node.value
            if _private(node.attr) and not (
                isinstance(owner, ast.Name) and owner.id in ("self", "cls")
            ):
                found.append(f"{where} reads the private attribute {ast.unparse(node)}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name == "Store":
                found.append(f"{where} constructs a Store")
            if name in ("__import__", "import_module"):
                found.append(f"{where} loads a module by name ({name})")
            if (
                name in ("getattr", "setattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and _private(node.args[1].value)
            ):
                found.append(f"{where} reads the private attribute {node.args[1].value!r}")
    return found


def layered_files() -> list[Path]:
    return sorted(p for layer in LAYERS for p in (ROOT / layer).rglob("*.py"))


def test_the_layers_exist() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in layered_files()}
    assert "cogmem/cli/app.py" in files and "cogmem/bench/scale.py" in files
    assert "benchmarks/load_test.py" in files


@pytest.mark.parametrize("path", layered_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_cli_and_benchmarks_use_only_the_public_api(path: Path) -> None:
    found = violations(path.read_text(encoding="utf-8"), _module_of(path), path.stem == "__init__")
    assert not found, "\n".join(found)


# -- the check itself catches what it should -----------------------------------------------
BAD = {
    "import cogmem.store": "imports cogmem.store",
    "import cogmem.store as s": "imports cogmem.store",
    "from cogmem.store import Store": "imports from cogmem.store",
    "from cogmem import store": "imports cogmem.store",
    "from cogmem.store.sub import x": "imports from cogmem.store.sub",
    "from ..store import StoreError": "imports from cogmem.store",
    "from cogmem.cli.common import _print_json": "private name cogmem.cli.common._print_json",
    "from cogmem.api import Memory, _helper": "private name cogmem.api._helper",
    "from cogmem._internal import thing": "private module cogmem._internal",
    "import cogmem._internal": "private module cogmem._internal",
    "from importlib import import_module": "imports importlib.import_module",
    "importlib.import_module(f'cogmem.commands.{name}')": "loads a module by name",
    "__import__('cogmem.store')": "loads a module by name",
    "store = api.Store(settings)": "constructs a Store",
    "version = mem.store._driver": "private attribute mem.store._driver",
    "driver = getattr(store, '_driver', None)": "private attribute '_driver'",
}
GOOD = [
    "from cogmem.api import Memory, StoreError",
    "from cogmem.server import local as localserver",
    "from cogmem.bench.common import percentile",
    "from __future__ import annotations",
    "self._cache = {}",
    "name = obj.__class__.__name__",
    "from .common import out",
    "from importlib import resources",
    "mem.store.read('inspect/conversations')",
]


@pytest.mark.parametrize("line", list(BAD))
def test_the_check_fails_on_a_violation(line: str) -> None:
    found = violations(line, "cogmem.cli.example")
    assert found and BAD[line] in "\n".join(found), found


@pytest.mark.parametrize("line", GOOD)
def test_the_check_passes_public_use(line: str) -> None:
    assert violations(line, "cogmem.cli.example") == []
