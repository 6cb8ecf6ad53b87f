"""Where skills are written, and safe, atomic writes there.

Targets are configuration (``promotion.targets``): ``claude_user`` (the first Claude Code
config root's ``skills/``), ``claude_project`` and ``codex_project`` (each of
``promotion.project_dirs``), ``codex_user`` (``~/.agents/skills``), or an explicit
directory (an entry starting with ``/`` or ``~``), which is what the demo and tests use to
stay away from the user's real skills.

Safety: a skill name is one plain path component, and the resolved ``SKILL.md`` must sit
exactly at ``<root>/<name>/SKILL.md`` after resolving symlinks, so neither ``..`` nor a
symlinked skill directory can make a promotion write outside the skill root. Writes go
through a directory descriptor opened with ``O_NOFOLLOW`` (no swap-in-a-symlink race),
into a temp file in the same directory that is fsynced and then renamed over the old file:
a crash or a full disk leaves either the old or the new file, never a torn one.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillopt_sleep import paths

SKILL_FILE = "SKILL.md"
TARGET_KINDS = ("claude_user", "claude_project", "codex_user", "codex_project")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class SkillPathError(Exception):
    """A skill name or path that would leave its skill root; refused, never written."""


class SkillWriteError(Exception):
    """Writing a skill failed (full disk, read-only directory …); nothing was half-written."""


@dataclass(frozen=True)
class Target:
    """One configured skill root, e.g. ``claude_user`` → ``~/.claude/skills``."""

    kind: str
    root: Path

    def label(self) -> str:
        return f"{self.kind}:{self.root}"


def text_hash(text: str) -> str:
    """The hash promotion compares to detect user edits (sha256 of the UTF-8 text)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_name(name: str) -> str:
    """Return ``name`` if it is a single safe path component, else raise SkillPathError."""
    if not isinstance(name, str) or not name:
        raise SkillPathError("a skill name must be a non-empty string")
    if "/" in name or "\\" in name or "\0" in name or os.path.isabs(name):
        raise SkillPathError(f"skill name {name!r} must not contain path separators")
    if name in (".", "..") or not _NAME_RE.fullmatch(name) or ".." in name:
        raise SkillPathError(
            f"skill name {name!r} is not allowed (letters, digits, '.', '_', '-'; "
            "no '..'; at most 128 characters)"
        )
    return name


def _claude_user_root() -> Path:
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "")
    first = next((p.strip() for p in configured.split(",") if p.strip()), "")
    return (Path(first).expanduser() if first else Path.home() / ".claude") / "skills"


def targets(config: Mapping[str, Any]) -> list[Target]:
    """The configured skill roots, in order, without duplicates."""
    section = config.get("promotion", {})
    kinds = section.get("targets") or ["claude_user"]
    projects = [Path(p).expanduser() for p in section.get("project_dirs") or []]
    out: list[Target] = []
    for kind in kinds:
        if not isinstance(kind, str):
            raise SkillPathError(f"promotion.targets entries must be strings, got {kind!r}")
        if kind == "claude_user":
            out.append(Target(kind, _claude_user_root()))
        elif kind == "codex_user":
            out.append(Target(kind, Path.home() / ".agents" / "skills"))
        elif kind in ("claude_project", "codex_project"):
            if not projects:
                raise SkillPathError(f"promotion target {kind} needs promotion.project_dirs")
            sub = ".claude" if kind == "claude_project" else ".agents"
            out.extend(Target(kind, p / sub / "skills") for p in projects)
        elif kind.startswith(("/", "~")):
            out.append(Target("dir", Path(kind).expanduser()))
        else:
            raise SkillPathError(
                f"unknown promotion target {kind!r} (use one of {', '.join(TARGET_KINDS)} "
                "or an absolute directory)"
            )
    seen: set[Path] = set()
    unique = []
    for target in out:
        key = Path(os.path.abspath(target.root))
        if key not in seen:
            seen.add(key)
            unique.append(Target(target.kind, key))
    return unique


def skill_file(root: Path, name: str) -> Path:
    """``<root>/<name>/SKILL.md``, refusing anything that resolves elsewhere."""
    check_name(name)
    root_real = Path(os.path.realpath(root))
    path = root / name / SKILL_FILE
    expected = root_real / name / SKILL_FILE
    if Path(os.path.realpath(path)) != expected:
        raise SkillPathError(
            f"{path} resolves outside its skill root {root_real} (symlink?); refusing to write"
        )
    return path


def read_skill(root: Path, name: str) -> str | None:
    """The skill's current text, or None when it does not exist."""
    path = skill_file(root, name)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _describe(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied (read-only skill directory?)"
    return exc.strerror or str(exc)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _open_dir(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)


def atomic_write(root: Path, name: str, text: str) -> Path:
    """Write ``text`` as ``<root>/<name>/SKILL.md`` atomically; return the path.

    Raises SkillWriteError with one readable line on any OS failure, after removing the
    temp file, so the old SKILL.md (if any) is untouched.
    """
    path = skill_file(root, name)
    tmp_name = f".{SKILL_FILE}.{os.getpid()}.tmp"
    dir_fd = -1
    created = False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        dir_fd = _open_dir(path.parent)
        fd = os.open(
            tmp_name,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o644,
            dir_fd=dir_fd,
        )
        created = True
        try:
            _write_all(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp_name, SKILL_FILE, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        created = False
        os.fsync(dir_fd)
    except OSError as exc:
        if created:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name, dir_fd=dir_fd)
        raise SkillWriteError(f"cannot write {path}: {_describe(exc)}") from exc
    finally:
        if dir_fd >= 0:
            os.close(dir_fd)
    return path


def remove_skill(root: Path, name: str) -> None:
    """Delete ``SKILL.md`` (and the skill directory if that leaves it empty)."""
    path = skill_file(root, name)
    try:
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            path.parent.rmdir()
    except OSError as exc:
        raise SkillWriteError(f"cannot remove {path}: {_describe(exc)}") from exc


def write_private(path: Path, text: str) -> None:
    """Atomically write a file in the state directory (0600), for version backups."""
    paths.ensure_private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            _write_all(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise SkillWriteError(f"cannot save a skill version to {path}: {_describe(exc)}") from exc
