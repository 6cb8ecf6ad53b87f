"""Finding an agent CLI and its version (part of every harness cache key)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from trainer.backends.base import InfraError

CLAUDE_CODE, CODEX = "claude-code", "codex"
COMMANDS = {CLAUDE_CODE: "claude", CODEX: "codex"}
_VERSION = re.compile(r"(\d+\.\d+\.\d+(?:[-+.][0-9A-Za-z.-]+)?)")


class CliNotFound(InfraError):
    """The agent CLI is not installed (or not where the config says)."""


@dataclass(frozen=True)
class CliInfo:
    kind: str  # CLAUDE_CODE | CODEX
    path: str
    version: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "path": self.path, "version": self.version}


_FOUND: dict[tuple[str, str, int], CliInfo] = {}


def find_cli(kind: str, path: str | None = None, search_path: str | None = None) -> CliInfo:
    """The CLI for `kind` at `path`, else the first on `search_path` (default PATH), with
    its version from `--version` (remembered per file and mtime: it costs ~0.3 s)."""
    if kind not in COMMANDS:
        raise ValueError(f"unknown harness {kind!r}; expected one of {', '.join(COMMANDS)}")
    found = path or shutil.which(COMMANDS[kind], path=search_path or os.environ.get("PATH"))
    if not found or not Path(found).is_file():
        where = path or f"PATH ({COMMANDS[kind]})"
        raise CliNotFound(f"{kind} CLI not found at {where}; install it or set its path")
    found = str(Path(found).absolute())
    key = (kind, found, Path(found).stat().st_mtime_ns)
    if key not in _FOUND:
        _FOUND[key] = CliInfo(kind, found, _version(found))
    return _FOUND[key]


def _version(path: str) -> str:
    try:
        done = subprocess.run(
            [path, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.devnull},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CliNotFound(f"{path} --version failed: {exc}") from exc
    match = _VERSION.search(done.stdout)
    if done.returncode != 0 or not match:
        raise CliNotFound(f"{path} --version gave no version: {done.stdout or done.stderr!r}")
    return match.group(1)
