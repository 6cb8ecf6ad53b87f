"""Package boundaries: who may import whom, and no import cycles anywhere.

The graph is read from the source (every import statement, also those inside functions —
a cycle hidden in a function is still a cycle; only ``if TYPE_CHECKING:`` blocks are left
out, as they never run). Importing ``a.b.c`` first runs ``a/b/__init__.py``, so an import
also depends on the target's packages (except those the importer is already inside).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
PACKAGES = ("skillopt_sleep", "trainer", "session_ingest")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((PROJECT / pkg).rglob("*.py")):
            if "data" in path.relative_to(PROJECT / pkg).parts:
                continue  # bundled sample data and its generator script
            parts = list(path.relative_to(PROJECT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text())
    skip = _type_checking_lines(tree)
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_pkg else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
    deps = set()
    for target in found:
        parts = target.split(".")
        for i in range(1, len(parts) + 1):
            dep = ".".join(parts[:i])
            if not (name == dep or name.startswith(dep + ".")):
                deps.add(dep)
    return {m for m in deps if m in modules}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    graph = _graph()
    assert len(graph) > 40  # the walk found the project
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _imports_outside(package: str) -> set[tuple[str, str]]:
    """(module, dependency) pairs where a module of ``package`` imports another package."""
    return {
        (m, dep)
        for m, deps in _graph().items()
        if m.startswith(package)
        for dep in deps
        if not dep.startswith(package)
    }


def _load_all_and_check_absent(package: str, banned: tuple[str, ...], then: str = "") -> None:
    """Import every module of ``package`` in a fresh interpreter (then run ``then``); no
    top-level package in ``banned`` may have been loaded."""
    names = [m for m in _modules() if m.startswith(package)]
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        f"{then}"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {banned!r}]\n"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PROJECT)


def test_trainer_imports_nothing_of_the_other_packages() -> None:
    assert _imports_outside("trainer") == set()


def test_trainer_loads_no_daemon_ingest_or_sqlite_at_run_time() -> None:
    banned = ("session_ingest", "skillopt_sleep", "sqlite3", "sqlite_utils")
    _load_all_and_check_absent("trainer", banned)


def test_session_ingest_imports_nothing_of_the_other_packages() -> None:
    assert _imports_outside("session_ingest") == set()


def test_session_ingest_loads_no_skillopt_sleep_or_trainer_at_run_time() -> None:
    every_name = (
        "import session_ingest\n"
        "for name in session_ingest.__all__:\n"
        "    getattr(session_ingest, name)\n"
    )
    _load_all_and_check_absent("session_ingest", ("skillopt_sleep", "trainer"), every_name)


def test_importing_session_ingest_or_its_schema_is_cheap() -> None:
    """The package and ``schema`` load no database library, parser or watcher: a program
    that only names them (a CLI's ``--help``, a reader of the tables) pays nothing."""
    code = (
        "import sys\n"
        "import session_ingest, session_ingest.schema\n"
        "heavy = ('sqlite_utils', 'numpy', 'watchdog', 'session_ingest.passes',"
        " 'session_ingest.claude', 'session_ingest.codex', 'session_ingest.redact')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PROJECT)


def test_session_ingest_names_are_what_they_name_whatever_was_imported_first() -> None:
    """A lazily exported name must not be shadowed by a submodule of the same name: once
    every submodule is loaded (as the CLI does), ``session_ingest.ingest`` is still the
    function, not a module."""
    names = [m for m in _modules() if m.startswith("session_ingest.")]
    code = (
        "import importlib, types\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "import session_ingest\n"
        "bad = [n for n in session_ingest.__all__\n"
        "       if isinstance(getattr(session_ingest, n), types.ModuleType)]\n"
        "assert not bad, bad\n"
        "from session_ingest import ingest\n"
        "assert callable(ingest)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PROJECT)


def test_only_a_source_module_names_its_source() -> None:
    """Ingest knows the agents only through ``registry``: outside ``claude.py`` and
    ``codex.py`` no module of session_ingest compares anything with "claude" or "codex"."""
    found = []
    for name, path in _modules().items():
        if not name.startswith("session_ingest") or name.rsplit(".", 1)[-1] in ("claude", "codex"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                literals = [c.value for c in (node.left, *node.comparators)
                            if isinstance(c, ast.Constant)]  # fmt: skip
                if {"claude", "codex"} & set(literals):
                    found.append(f"{name}:{node.lineno}")
    assert found == []
