"""Finding session logs: the configured roots, the files under them, each stat'ed once."""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Found:
    source: str
    path: str
    st: os.stat_result


def short(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path.startswith(home + "/") else path


def source_dirs(config: dict[str, Any], sources: Iterable[str]) -> list[tuple[str, Path]]:
    """The directories holding session logs, per source, following the config's roots."""
    from skillopt_sleep import config as config_mod  # the config owns root resolution

    out: list[tuple[str, Path]] = []
    wanted = set(sources)
    src_cfg = config.get("sources", {})
    if "claude" in wanted and src_cfg.get("claude", {}).get("enabled", True):
        out += [("claude", r / "projects") for r in config_mod.claude_roots(config)]
    if "codex" in wanted and src_cfg.get("codex", {}).get("enabled", True):
        for r in config_mod.codex_roots(config):
            out += [("codex", r / "sessions"), ("codex", r / "archived_sessions")]
    return out


def discover(dirs: Iterable[tuple[str, Path]], errors: list[str]) -> list[Found]:
    """Every session log under ``dirs`` (sorted, de-duplicated), stat'ed once."""
    found: dict[str, Found] = {}
    for source, top in dirs:
        if not top.is_dir():
            continue
        stack = [str(top)]
        while stack:
            d = stack.pop()
            try:
                entries = list(os.scandir(d))
            except OSError as exc:
                errors.append(f"{short(d)}: cannot list ({exc.strerror})")
                continue
            for e in entries:
                name = e.name
                try:
                    if e.is_dir(follow_symlinks=False):
                        if name.endswith((".jsonl", ".json")):
                            errors.append(f"{short(e.path)}: is a directory, not a log")
                        elif name not in ("memory", "tool-results"):
                            stack.append(e.path)
                        continue
                    wanted = name.endswith(".jsonl") or (
                        source == "codex" and name.startswith("rollout-") and name.endswith(".json")
                    )
                    if not wanted or e.path in found:
                        continue
                    found[e.path] = Found(source, e.path, e.stat())
                except OSError as exc:
                    errors.append(f"{short(e.path)}: vanished or unreadable ({exc.strerror})")
    return [found[p] for p in sorted(found)]


def stat_paths(
    config: dict[str, Any], paths: Iterable[str | Path], errors: list[str]
) -> list[Found]:
    """Stat specific files, deciding each one's source by which configured root holds it."""
    dirs = source_dirs(config, ("claude", "codex"))
    out: list[Found] = []
    for p in sorted({os.path.abspath(str(x)) for x in paths}):
        source = next((s for s, d in dirs if p.startswith(str(d) + os.sep)), None)
        if source is None:
            continue
        try:
            st = os.stat(p)
        except OSError as exc:
            errors.append(f"{short(p)}: vanished or unreadable ({exc.strerror})")
            continue
        if stat_mod.S_ISDIR(st.st_mode):
            if p.endswith((".jsonl", ".json")):
                errors.append(f"{short(p)}: is a directory, not a log")
            continue
        if p.endswith(".jsonl") or (source == "codex" and p.endswith(".json")):
            out.append(Found(source, p, st))
    return out
