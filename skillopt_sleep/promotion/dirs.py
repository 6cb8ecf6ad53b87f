"""Where skills are written, and safe, atomic writes there.

Targets are configuration (``promotion.targets``): ``claude_user`` (the first Claude Code
config root's ``skills/``), ``claude_project`` and ``codex_project`` (each of
``promotion.project_dirs``), ``codex_user`` (``~/.agents/skills``), or an explicit
directory (an entry starting with ``/`` or ``~``), which is what the demo and tests use to
stay away from the user's real skills.

With no ``promotion.targets`` configured, the targets are the agents found on this machine
(``present_agents``). A skill never goes to both a Codex user and project directory
(``skill_targets``): Codex would list it twice.

Safety: a skill name is one plain path component. Reading follows links (a skill linked
in from a dotfiles repository is the user's skill and is trained like any other); writing
never does: the ``SKILL.md`` written must sit exactly at ``<root>/<name>/SKILL.md`` after
resolving links (``link_problem``), so neither ``..`` nor a linked skill directory can
make a promotion write outside the skill root; such a promotion is staged instead. Writes
go through a directory descriptor opened with ``O_NOFOLLOW`` (no swap-in-a-symlink race),
into a temp file in the same directory that is fsynced and then renamed over the old file:
a crash or a full disk leaves either the old or the new file, never a torn one. A kill -9
between creating the temp file and renaming it leaves the temp file: every write to or
removal from a skill directory, and every promotion that visits it, first removes the
temp files no running process is writing (``files.clear_stale_temps``), so none outlives
the next run that touches that skill.
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

from skillopt_sleep import files

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


def unusable_name(name: str) -> str | None:
    """Why a skill name seen in the logs cannot be trained at all, or None: a plugin's
    skill (``plugin:skill``; the plugin owns it), or a name that is not one safe folder."""
    if isinstance(name, str) and ":" in name and "/" not in name:
        plugin = name.split(":", 1)[0]
        return f"a skill of the plugin {plugin!r}: plugins own their skills"
    try:
        check_name(name)
    except SkillPathError as exc:
        return f"not usable as a skill folder: {exc}"
    return None


def claude_user_root() -> Path:
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "")
    first = next((p.strip() for p in configured.split(",") if p.strip()), "")
    return (Path(first).expanduser() if first else Path.home() / ".claude") / "skills"


def _codex_home() -> Path:
    configured = os.environ.get("CODEX_HOME", "")
    first = next((p.strip() for p in configured.split(",") if p.strip()), "")
    return Path(first).expanduser() if first else Path.home() / ".codex"


def _codex_user_root() -> Path:
    return Path.home() / ".agents" / "skills"


def present_agents() -> list[str]:
    """The default targets: the user-level skill root of every agent found on this machine
    (Claude Code by its config root, Codex by its home or ``~/.agents``); ``claude_user``
    when neither is there."""
    kinds = []
    if claude_user_root().parent.is_dir():
        kinds.append("claude_user")
    if _codex_home().is_dir() or (Path.home() / ".agents").is_dir():
        kinds.append("codex_user")
    return kinds or ["claude_user"]


def targets(config: Mapping[str, Any]) -> list[Target]:
    """The configured skill roots, in order, without duplicates."""
    section = config.get("promotion", {})
    kinds = section.get("targets") or present_agents()
    projects = [Path(p).expanduser() for p in section.get("project_dirs") or []]
    out: list[Target] = []
    for kind in kinds:
        if not isinstance(kind, str):
            raise SkillPathError(f"promotion.targets entries must be strings, got {kind!r}")
        if kind == "claude_user":
            out.append(Target(kind, claude_user_root()))
        elif kind == "codex_user":
            out.append(Target(kind, _codex_user_root()))
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


def skill_targets(config: Mapping[str, Any], name: str) -> list[Target]:
    """The targets ``name`` goes to. Codex lists a skill found in both its user directory
    and a project's twice, so in Codex a skill goes only where it already is (a user-level
    one counts even when ``codex_user`` is not configured), else to the user directory
    when that is configured, else to the configured project directories."""
    all_targets = targets(config)
    codex = [t for t in all_targets if t.kind in ("codex_user", "codex_project")]
    if not codex:
        return all_targets

    def holds(root: Path) -> bool:
        return os.path.lexists(root / name / SKILL_FILE)

    projects = [t for t in codex if t.kind == "codex_project"]
    if holds(_codex_user_root()):
        keep = [t for t in codex if t.kind == "codex_user" or holds(t.root)]
    elif held := [t for t in projects if holds(t.root)]:
        keep = held
    else:
        keep = [t for t in codex if t.kind == "codex_user"] or projects
    return [t for t in all_targets if t not in codex or t in keep]


def skill_path(root: Path, name: str) -> Path:
    """``<root>/<name>/SKILL.md`` for a safe ``name`` (links not resolved)."""
    return root / check_name(name) / SKILL_FILE


def link_problem(root: Path, name: str) -> str | None:
    """Why a write to ``<root>/<name>/SKILL.md`` would go through a symbolic link (the
    skill directory or its SKILL.md resolves somewhere else), or None. Reading through such
    a link is fine (dotfile managers link skills in); writing through it is never done."""
    path = skill_path(root, name)
    real = Path(os.path.realpath(path))
    if real == Path(os.path.realpath(root)) / name / SKILL_FILE:
        return None
    return f"{path} is a symbolic link to {real}; skillopt-sleep never writes through links"


def skill_file(root: Path, name: str) -> Path:
    """``<root>/<name>/SKILL.md`` for writing, refusing anything that resolves elsewhere."""
    problem = link_problem(root, name)
    if problem:
        raise SkillPathError(problem)
    return skill_path(root, name)


def read_skill(root: Path, name: str) -> str | None:
    """The skill's current text (through links), or None when it does not exist. Raises
    OSError when it cannot be read and UnicodeDecodeError when it is not UTF-8. Line ends
    are kept as they are (no newline translation), so a saved version is the file's bytes."""
    try:
        return skill_path(root, name).read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None


def describe(exc: OSError) -> str:
    """An OS error in words a user can act on."""
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied (read-only skill directory?)"
    return exc.strerror or str(exc)


def _open_dir(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)


def _keep_mode(fd: int, dir_fd: int) -> None:
    """Give the new file the mode of the SKILL.md it replaces, without group/world write (a
    new file keeps what ``os.open`` gave it: 0644 less the umask)."""
    try:
        old = os.stat(SKILL_FILE, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return
    os.fchmod(fd, old & 0o755)


def atomic_write(root: Path, name: str, text: str) -> Path:
    """Write ``text`` as ``<root>/<name>/SKILL.md`` atomically; return the path.

    New directories are 0755 and a new file 0644 at most, whatever the umask; a replaced
    file keeps its mode, less group/world write. Raises SkillWriteError with one readable
    line on any OS failure, after removing the temp file, so the old SKILL.md (if any) is
    untouched.
    """
    path = skill_file(root, name)
    tmp_name = files.temp_name(SKILL_FILE)
    dir_fd = -1
    created = False
    try:
        files.make_dirs(path.parent, files.SKILL_DIR)
        dir_fd = _open_dir(path.parent)
        files.clear_stale_temps(dir_fd, SKILL_FILE)
        fd = os.open(
            tmp_name,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            files.SKILL_FILE,
            dir_fd=dir_fd,
        )
        created = True
        try:
            _keep_mode(fd, dir_fd)
            files.write_all(fd, text.encode("utf-8"))
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
        raise SkillWriteError(f"cannot write {path}: {describe(exc)}") from exc
    finally:
        if dir_fd >= 0:
            os.close(dir_fd)
    return path


def clear_stale(root: Path, name: str) -> None:
    """Remove temp files a killed write left in the skill's directory (best effort; a
    directory that is not there, or not a plain directory, is left alone)."""
    try:
        dir_fd = _open_dir(skill_path(root, name).parent)
    except OSError:
        return
    try:
        files.clear_stale_temps(dir_fd, SKILL_FILE)
    finally:
        os.close(dir_fd)


def remove_skill(root: Path, name: str) -> None:
    """Delete ``SKILL.md`` (and the skill directory if that leaves it empty)."""
    path = skill_file(root, name)
    clear_stale(root, name)
    try:
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            path.parent.rmdir()
    except OSError as exc:
        raise SkillWriteError(f"cannot remove {path}: {describe(exc)}") from exc
