"""Finding session logs: the files under the caller's roots, each stat'ed once.

``roots`` maps a source name to the tool's home directories (``{"claude": [~/.claude],
"codex": [~/.codex]}``); the caller decides them (skillopt-sleep from its configuration,
``$CLAUDE_CONFIG_DIR`` and ``$CODEX_HOME``). Each source says which directories under a
home hold its logs and which file names are logs.
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from session_ingest import registry

Roots = Mapping[str, Iterable["str | Path"]]  # source name -> the tool's home directories


@dataclass
class Found:
    source: str
    path: str
    st: os.stat_result


def short(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path.startswith(home + "/") else path


def log_dirs(roots: Roots) -> list[tuple[str, Path]]:
    """(source name, directory) for every directory of logs under ``roots``."""
    out: list[tuple[str, Path]] = []
    for name, homes in roots.items():
        src = registry.get(name)
        for home in homes:
            out += [(name, d) for d in src.log_dirs(Path(home).expanduser())]
    return out


def discover(roots: Roots, errors: list[str]) -> list[Found]:
    """Every session log under ``roots`` (sorted, de-duplicated), stat'ed once."""
    found: dict[str, Found] = {}
    for name, top in log_dirs(roots):
        if not top.is_dir():
            continue
        src = registry.get(name)
        stack = [str(top)]
        while stack:
            d = stack.pop()
            try:
                entries = list(os.scandir(d))
            except OSError as exc:
                errors.append(f"{short(d)}: cannot list ({exc.strerror})")
                continue
            for e in entries:
                try:
                    if e.is_dir(follow_symlinks=False):
                        if src.is_log(e.name):
                            errors.append(f"{short(e.path)}: is a directory, not a log")
                        elif e.name not in src.skip_dirs:
                            stack.append(e.path)
                        continue
                    if src.is_log(e.name) and e.path not in found:
                        found[e.path] = Found(name, e.path, e.stat())
                except OSError as exc:
                    errors.append(f"{short(e.path)}: vanished or unreadable ({exc.strerror})")
    return [found[p] for p in sorted(found)]


def stat_paths(roots: Roots, paths: Iterable[str | Path], errors: list[str]) -> list[Found]:
    """Stat specific files, deciding each one's source by which log directory holds it;
    files outside every log directory are left out."""
    dirs = log_dirs(roots)
    out: list[Found] = []
    for p in sorted({os.path.abspath(str(x)) for x in paths}):
        name = next((s for s, d in dirs if p.startswith(str(d) + os.sep)), None)
        if name is None:
            continue
        src = registry.get(name)
        try:
            st = os.stat(p)
        except OSError as exc:
            errors.append(f"{short(p)}: vanished or unreadable ({exc.strerror})")
            continue
        if stat_mod.S_ISDIR(st.st_mode):
            if src.is_log(os.path.basename(p)):
                errors.append(f"{short(p)}: is a directory, not a log")
            continue
        if src.is_log(os.path.basename(p)):
            out.append(Found(name, p, st))
    return out
