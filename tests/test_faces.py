"""A package's face names its exports twice: for the type checker (``if TYPE_CHECKING:``
imports, so ``from trainer import optimize`` is typed, not ``Any``) and for the run time
(``_EXPORTS``, loaded on first use). The two must be the same names from the same modules."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
FACES = ["trainer", "session_ingest", "skillopt_sleep.mining"]


def _typed_names(package: str) -> dict[str, str]:
    path = PROJECT / package.replace(".", "/") / "__init__.py"
    out = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                out.update({alias.name: imp.module for alias in imp.names})
    return out


@pytest.mark.parametrize("package", FACES)
def test_the_type_checker_sees_what_the_face_exports(package: str) -> None:
    face = importlib.import_module(package)
    exports = {
        name: module if "." in module else f"{package}.{module}"
        for name, module in face._EXPORTS.items()
    }
    assert _typed_names(package) == exports
    for name, module in exports.items():  # and each is what the run time hands out
        assert getattr(face, name) is getattr(importlib.import_module(module), name)
