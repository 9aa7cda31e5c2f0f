"""The CLI and the benchmarks are shells over the Python API (:class:`cogmem.api.Memory`).

Every module under ``cogmem/cli/``, ``cogmem/bench/`` and ``benchmarks/`` is parsed (not
imported) and may not
- import ``cogmem.store`` (in any spelling) or construct a ``Store``;
- import a leading-underscore name (or module) of another cogmem module;
- reach for a private attribute of another object (``x._driver``, ``getattr(x, "_y")``);
- load modules by name (``importlib.import_module``, ``__import__``), which hides imports
  from this check (``importlib.resources`` for data files is fine).

The store stays inside the core. Outside the modules of :data:`CORE`, no module of
``cogmem/``, ``benchmarks/`` or ``tests/`` reads a ``.store`` or ``._store`` attribute of
another object (``mem.store``, ``mem._store``, ``mem.clients.store``, ``getattr(x,
"store")``); an object's own field (``self._store``: a :class:`TokenStore` built by
``mem.admin.tokens()``) is its own business. The core:

- ``cogmem/api.py`` (Memory) and its namespaces ``cogmem/admin.py`` (``mem.admin``),
  ``cogmem/inspection.py`` (``mem.inspect``), ``cogmem/live.py`` (``mem.live``, and the
  queue and outbox it writes through);
- ``cogmem/store.py`` and ``cogmem/clients.py``, which build and hold the store;
- the layers below the API that are handed a store: ``cogmem/ingest``,
  ``cogmem/retrieval``, ``cogmem/consolidate``, ``cogmem/forget.py``, ``cogmem/transfer``
  (through its ExportSource / ImportTarget protocols) and ``cogmem/server`` (schema,
  reindex);
- in the tests, ``tests/internals.py`` (``store_of(mem)``, ``transfer_view(mem)``: the one
  door from a test to a Memory's store; a test that needs the database alone takes the
  ``store`` fixture of ``tests/conftest.py``) and ``tests/unit/test_clients.py`` (which tests what
  ``Clients.store`` holds).

:data:`STORE_EXCEPTIONS` names the accesses let through outside it, each with its reason.
"""

from __future__ import annotations

import ast
import itertools
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


# -- the store stays inside the core ----------------------------------------------------------
CORE = (
    "cogmem/api.py",
    "cogmem/admin.py",
    "cogmem/inspection.py",
    "cogmem/live.py",
    "cogmem/store.py",
    "cogmem/clients.py",
    "cogmem/ingest",
    "cogmem/retrieval",
    "cogmem/consolidate",
    "cogmem/forget.py",
    "cogmem/transfer",
    "cogmem/server",
    "tests/internals.py",
    "tests/unit/test_clients.py",
)
STORE_NAMES = ("store", "_store")
STORE_EXCEPTIONS = {
    # times the search copy's catch-up reads one by one (cogmem.retrieval.vector_cache's
    # own steps, below any API): a micro-benchmark of retrieval internals
    ("benchmarks/live_refresh.py", "memory._store"),
    # a result row's field: the name of the synthetic data set it was measured on, no Store
    ("benchmarks/vector_filter.py", "b.store"),
}


def _core(rel: str) -> bool:
    return any(rel == c or rel.startswith(c + "/") for c in CORE)


def store_access(source: str, where: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Each ``x.store`` / ``x._store`` (``x`` not ``self`` or ``cls``) and each
    ``getattr(x, "store")`` in ``source``, but for the expressions ``allowed``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in STORE_NAMES:
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Name) and owner.id == "cogmem":
                continue  # the module cogmem.store (its imports are the checks above)
            text = ast.unparse(node)
            if text not in allowed:
                found.append(f"{where}:{node.lineno} reads the store: {text}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if (
                name in ("getattr", "setattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in STORE_NAMES
            ):
                found.append(f"{where}:{node.lineno} reads the store: {ast.unparse(node)}")
    return found


def outside_core() -> list[Path]:
    files = [p for d in ("cogmem", "benchmarks", "tests") for p in (ROOT / d).rglob("*.py")]
    return sorted(p for p in files if not _core(p.relative_to(ROOT).as_posix()))


def test_the_core_exists() -> None:
    for path in CORE:
        assert (ROOT / path).exists(), path
    rels = {p.relative_to(ROOT).as_posix() for p in outside_core()}
    assert {"cogmem/service/core.py", "cogmem/cli/service.py", "cogmem/bench/scale.py"} <= rels
    assert "tests/integration/test_retrieval.py" in rels and "cogmem/api.py" not in rels


@pytest.mark.parametrize("path", outside_core(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_store_stays_in_the_core(path: Path) -> None:
    rel = path.relative_to(ROOT).as_posix()
    allowed = frozenset(expr for file, expr in STORE_EXCEPTIONS if file == rel)
    found = store_access(path.read_text(encoding="utf-8"), rel, allowed)
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        "TokenStore(mem.store).create(group)",
        "rows = mem._store.read('inspect/turns', group=mem.group)",
        "self.memory.store.glance('meta/ping')",
        "ops = Operators(mem.clients.store, mem.group)",
        "store = getattr(mem, 'store')",
        "store, group = memory._store, memory.group",
    ],
)
def test_the_store_check_fails_on_a_planted_access(line: str) -> None:
    found = store_access(line, "cogmem/service/planted.py")
    assert len(found) == 1, found
    assert found[0].startswith("cogmem/service/planted.py:1 reads the store: "), found


def test_the_store_check_finds_a_planted_file(tmp_path: Path) -> None:
    """A module planted in the service, outside the core, that reaches for a Memory's store
    fails the check as the real ones are run through it."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from cogmem.api import Memory\n\n\n"
        "def sneak(mem: Memory) -> int:\n"
        "    return len(mem._store.read('inspect/groups'))\n",
        encoding="utf-8",
    )
    assert not _core("cogmem/service/planted.py")
    found = store_access(planted.read_text(encoding="utf-8"), "cogmem/service/planted.py")
    assert found == ["cogmem/service/planted.py:5 reads the store: mem._store"]


@pytest.mark.parametrize(
    "line",
    [
        "self._store = store",
        "rows = self._store.read('auth/list_tokens', group=group)",
        "from cogmem.store import StoreError",
        "import cogmem.store",
        "x = cogmem.store.Store",
        "tokens = mem.admin.tokens()",
        "mem.inspect.counts()",
        "store.read('inspect/turns', group=group)",
    ],
)
def test_the_store_check_passes_what_is_not_a_store_access(line: str) -> None:
    assert store_access(line, "cogmem/service/example.py") == []


def test_an_exception_is_one_expression_of_one_file() -> None:
    line = "store, group = memory._store, memory.group\nother = mem._store\n"
    allowed = frozenset({"memory._store"})
    assert store_access(line, "benchmarks/x.py", allowed) == [
        "benchmarks/x.py:2 reads the store: mem._store"
    ]


def layered_files() -> list[Path]:
    return sorted(p for layer in LAYERS for p in (ROOT / layer).rglob("*.py"))


def test_the_layers_exist() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in layered_files()}
    assert "cogmem/cli/app.py" in files and "cogmem/bench/scale.py" in files
    assert "benchmarks/load_test.py" in files


@pytest.mark.parametrize("path", layered_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_cli_and_benchmarks_use_only_the_public_api(path: Path) -> None:
    rel = path.relative_to(ROOT).as_posix()
    excepted = {f"reads the private attribute {e}" for f, e in STORE_EXCEPTIONS if f == rel}
    found = violations(path.read_text(encoding="utf-8"), _module_of(path), path.stem == "__init__")
    found = [f for f in found if f.split(" ", 1)[1] not in excepted]
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
    "mem.inspect.conversations()",
]


@pytest.mark.parametrize("line", list(BAD))
def test_the_check_fails_on_a_violation(line: str) -> None:
    found = violations(line, "cogmem.cli.example")
    assert found and BAD[line] in "\n".join(found), found


@pytest.mark.parametrize("line", GOOD)
def test_the_check_passes_public_use(line: str) -> None:
    assert violations(line, "cogmem.cli.example") == []


# -- no import circles inside the package ----------------------------------------------------
# Imports flow one way (docs/architecture.md): a module never imports one above it, not even
# inside a function or under ``if TYPE_CHECKING:`` (a deferred import hides a circle, it does
# not break it). What a lower module needs from a higher one it receives as an argument typed
# by a Protocol. The graph is read from the source (ast), so nothing is imported to build it.
def _modules(root: Path, package: str) -> dict[str, tuple[Path, bool]]:
    """``dotted name -> (file, is_package)`` for every module of ``package`` under ``root``."""
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = (path, is_package)
    return found


def import_graph(root: Path, package: str = "cogmem") -> dict[str, dict[str, int]]:
    """``module -> {module it imports: line}`` over the modules of ``package``: every
    ``import`` and ``from … import`` anywhere in a file (module level, in a function, under
    ``TYPE_CHECKING``). ``from pkg import name`` is an edge to ``pkg.name`` when that is a
    module, else to ``pkg``; importing ``a.b.c`` is an edge to the deepest module of it that
    exists. A package's ``__init__`` running before its submodules is not an edge."""
    modules = _modules(root, package)

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, int]] = {name: {} for name in modules}
    for name, (path, is_package) in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(node, name, is_package)
                subs = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in modules]
                targets = subs + ([source] if len(subs) < len(node.names) else [])
            for target in targets:
                if target != package and not target.startswith(package + "."):
                    continue
                resolved = known(target)
                if resolved and resolved != name:
                    graph[name].setdefault(resolved, node.lineno)
    return graph


def import_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One circle (``[a, b, …, a]``) per strongly connected set of modules (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: set[str] = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    circles: list[list[str]] = []
    for component in components:
        start = min(component)
        paths = {start: [start]}
        queue = [start]
        circle: list[str] | None = None
        while queue and circle is None:  # breadth first: the shortest way back to start
            v = queue.pop(0)
            for w in sorted(graph[v]):
                if w == start:
                    circle = [*paths[v], start]
                    break
                if w in component and w not in paths:
                    paths[w] = [*paths[v], w]
                    queue.append(w)
        assert circle is not None
        circles.append(circle)
    return sorted(circles)


def _shown(circle: list[str], graph: dict[str, dict[str, int]]) -> str:
    steps = [f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(circle)]
    return " -> ".join([*steps, circle[-1]])


def test_the_package_has_no_import_circles() -> None:
    graph = import_graph(ROOT)
    assert "cogmem.api" in graph and "cogmem.store" in graph["cogmem.api"]
    circles = import_cycles(graph)
    assert not circles, "import circles:\n" + "\n".join(_shown(c, graph) for c in circles)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("files", "circle"),
    [
        (  # a deferred import inside a function still closes the circle
            {
                "pkg/__init__.py": "",
                "pkg/low.py": "def f():\n    from pkg.high import g\n",
                "pkg/high.py": "from pkg import low\n",
            },
            ["pkg.high", "pkg.low", "pkg.high"],
        ),
        (  # so does an import only for type checking, and a relative one
            {
                "pkg/__init__.py": "",
                "pkg/sub/__init__.py": "from .a import x\n",
                "pkg/sub/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from ..top import T\nx = 1\n",
                "pkg/top.py": "import pkg.sub\n",
            },
            ["pkg.sub", "pkg.sub.a", "pkg.top", "pkg.sub"],
        ),
    ],
)
def test_the_circle_check_finds_a_circle(
    tmp_path: Path, files: dict[str, str], circle: list[str]
) -> None:
    assert import_cycles(import_graph(_package(tmp_path, files), "pkg")) == [circle]


def test_the_circle_check_passes_one_way_imports(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.high import g\n",  # a package re-exporting is fine
            "pkg/low.py": "import json\nfrom pkg import models\n",
            "pkg/models.py": "X = 1\n",
            "pkg/high.py": "from pkg.low import models\nfrom . import low\n",
        },
    )
    graph = import_graph(root, "pkg")
    assert graph == {
        "pkg": {"pkg.high": 1},
        "pkg.high": {"pkg.low": 1},
        "pkg.low": {"pkg.models": 2},  # the submodule, not the package that re-exports
        "pkg.models": {},
    }
    assert import_cycles(graph) == []
