"""The installed ``skillopt-sleep`` console script, for tests that run it as a process."""

from __future__ import annotations

import sysconfig
from importlib.metadata import entry_points
from pathlib import Path

import pytest

NAME = "skillopt-sleep"


def console_script(name: str = NAME) -> Path:
    """The script pip made for the interpreter running the tests: in its install scheme's
    scripts folder (a venv's ``bin/``), else the user scheme's (``pip install --user``).
    Never a path guessed from the checkout, which a worktree or a CI machine lacks."""
    if not entry_points(group="console_scripts", name=name):
        pytest.fail(f"{name!r} is not installed for this interpreter: pip install -e .")
    folders = [sysconfig.get_path("scripts"), sysconfig.get_path("scripts", _user_scheme())]
    for folder in folders:
        path = Path(folder) / name
        if path.is_file():
            return path
    pytest.fail(f"{name!r} is installed but its script is in none of {folders}")


def _user_scheme() -> str:
    return sysconfig.get_preferred_scheme("user")
