"""Where things live on disk: the XDG base-directory spec and each tool's own conventions."""

from __future__ import annotations

import os
from pathlib import Path

from skillopt_sleep import files

APP = "skillopt-sleep"


def _xdg(var: str, fallback: str) -> Path:
    value = os.environ.get(var)
    return Path(value) if value else Path.home() / fallback


def config_dir() -> Path:
    return _xdg("XDG_CONFIG_HOME", ".config") / APP


def config_file() -> Path:
    return config_dir() / "config.yaml"


def default_state_dir() -> Path:
    return _xdg("XDG_STATE_HOME", ".local/state") / APP


def _env_roots(var: str) -> list[Path]:
    value = os.environ.get(var, "")
    return [Path(p.strip()).expanduser() for p in value.split(",") if p.strip()]


def claude_roots() -> list[Path]:
    """Claude Code roots: $CLAUDE_CONFIG_DIR (comma list), else ~/.claude and ~/.config/claude."""
    return _env_roots("CLAUDE_CONFIG_DIR") or [
        Path.home() / ".claude",
        Path.home() / ".config" / "claude",
    ]


def codex_roots() -> list[Path]:
    """Codex homes: $CODEX_HOME (comma list) else ~/.codex."""
    return _env_roots("CODEX_HOME") or [Path.home() / ".codex"]


def ensure_private_dir(path: Path) -> Path:
    """Create a directory readable only by the user (missing parents too: 0700 whatever the
    umask), or tighten an existing one to 0700."""
    files.make_dirs(path, files.PRIVATE_DIR)
    os.chmod(path, files.PRIVATE_DIR)
    return path
