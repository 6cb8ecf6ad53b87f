"""The docs stay true: every example marked ``<!-- doctest -->`` runs, and the CLI
reference is what ``--help`` says today."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
DOCS = PROJECT / "docs"
_BLOCK = re.compile(r"<!-- doctest -->\n```python\n(.*?)\n```", re.DOTALL)


def _examples() -> list[tuple[str, str]]:
    out = []
    for page in sorted([*DOCS.glob("*.md"), PROJECT / "README.md"]):
        for n, code in enumerate(_BLOCK.findall(page.read_text()), 1):
            out.append((f"{page.name}#{n}", code))
    return out


def test_some_examples_are_marked() -> None:
    assert any(name.startswith("library.md") for name, _ in _examples())


@pytest.mark.parametrize(("name", "code"), _examples(), ids=[n for n, _ in _examples()])
def test_doc_example_runs(name: str, code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code)
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"{name} failed:\n{proc.stderr[-3000:]}"


def test_cli_reference_is_current() -> None:
    proc = subprocess.run(
        [sys.executable, str(DOCS / "make_cli_reference.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
