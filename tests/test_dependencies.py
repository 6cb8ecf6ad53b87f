"""Every third-party module the packages import is a declared dependency of pyproject.toml
(numpy, scipy and tzlocal were once installed only as scikit-learn's and APScheduler's)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("trainer", "session_ingest", "skillopt_sleep")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        reqs += extra
    return {_norm(re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0]) for r in reqs}


def imported_top_levels() -> dict[str, str]:
    """Top-level module name -> one file importing it, over the three packages."""
    found: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if not (path.parent / f"{top}.py").exists():  # a script's sibling
                        found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def test_every_third_party_import_is_declared() -> None:
    distributions = importlib.metadata.packages_distributions()
    wanted = declared()
    missing = {}
    for module, where in imported_top_levels().items():
        if module in sys.stdlib_module_names or module in PACKAGES or module == "__future__":
            continue
        dists = {_norm(d) for d in distributions.get(module, [module])}
        if not dists & wanted:
            missing[module] = where
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"


def test_the_check_sees_a_direct_import() -> None:
    """The scan is not vacuous: it finds numpy, which the gate imports."""
    assert imported_top_levels().get("numpy") is not None
    assert "numpy" in declared()
