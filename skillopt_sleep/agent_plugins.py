"""The plugins that bring skillopt-sleep inside Claude Code and Codex.

Each agent gets a local marketplace holding one plugin (templates in ``data/agent/``): a
hook that ingests the session the agent just finished (only that file, by byte offset, so
it takes a moment) and a command or skill that shows last night's outcome. ``install``
renders the templates with the absolute path of the running ``skillopt-sleep`` into
``$XDG_DATA_HOME/skillopt-sleep/agent/<agent>/`` and registers them through the agent's own
CLI (``claude plugin …`` / ``codex plugin …``), the supported way to install a plugin;
without that CLI on PATH it prints the commands instead.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from skillopt_sleep import __version__

PLUGIN = "skillopt-sleep"
MARKETPLACE = "skillopt-sleep"
EXE_MARK = "@SKILLOPT_SLEEP@"
VERSION_MARK = "@VERSION@"


class PluginError(Exception):
    """Rendering or registering a plugin failed; one line."""


@dataclass(frozen=True)
class Agent:
    name: str  # "claude" | "codex"
    cli: str  # the agent's command
    add: tuple[tuple[str, ...], ...]  # registration commands; "{root}" is the marketplace
    remove: tuple[tuple[str, ...], ...]
    note: str  # what the user does next


AGENTS = {
    "claude": Agent(
        "claude",
        "claude",
        add=(
            ("plugin", "marketplace", "add", "{root}"),
            ("plugin", "install", f"{PLUGIN}@{MARKETPLACE}"),
        ),
        remove=(
            ("plugin", "uninstall", f"{PLUGIN}@{MARKETPLACE}"),
            ("plugin", "marketplace", "remove", MARKETPLACE),
        ),
        note="restart Claude Code; then /skillopt-sleep:last-night shows last night's outcome",
    ),
    "codex": Agent(
        "codex",
        "codex",
        add=(
            ("plugin", "marketplace", "add", "{root}"),
            ("plugin", "add", f"{PLUGIN}@{MARKETPLACE}"),
        ),
        remove=(
            ("plugin", "remove", f"{PLUGIN}@{MARKETPLACE}"),
            ("plugin", "marketplace", "remove", MARKETPLACE),
        ),
        note="restart Codex and trust the plugin's Stop hook when asked (Codex runs a hook "
        "only once you trust it); then ask for $last-night",
    ),
}


def plugin_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "skillopt-sleep" / "agent"


def _target_name(name: str) -> str:
    """Package data holds no hidden folders: ``dot-claude-plugin`` -> ``.claude-plugin``."""
    return "." + name.removeprefix("dot-") if name.startswith("dot-") else name


def _copy(source: Traversable, dest: Path, exe_word: str) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        target = dest / _target_name(item.name)
        if item.is_dir():
            _copy(item, target, exe_word)
            continue
        text = item.read_text().replace(EXE_MARK, exe_word).replace(VERSION_MARK, __version__)
        target.write_text(text)


def render(agent: str, exe: Path, root: Path | None = None) -> Path:
    """Write the agent's marketplace (with the plugin inside) to ``root``; returns it."""
    if "'" in str(exe) or "\n" in str(exe):
        raise PluginError(f"cannot write a hook command for the path {str(exe)!r}")
    root = root or plugin_home() / agent
    if root.exists():
        shutil.rmtree(root)
    template = resources.files("skillopt_sleep").joinpath("data", "agent", agent)
    _copy(template, root, shlex.quote(str(exe)))
    return root


def hook_paths(agent: str, payload: object) -> list[Path]:
    """The files a finished session left, from the JSON the agent passes its hook on stdin:
    ``transcript_path`` (Claude Code's session file, Codex's rollout file) and, for Claude
    Code, the session's subagent transcripts beside it. Raises ValueError on a payload
    that is not a hook's."""
    if not isinstance(payload, dict):
        raise ValueError("the hook input is not a JSON object")
    transcript = payload.get("transcript_path")
    if transcript is None:
        return []  # Codex sends null when the session has no rollout file yet
    if not isinstance(transcript, str) or not transcript:
        raise ValueError("the hook input's transcript_path is not a path")
    path = Path(transcript).expanduser()
    try:
        path.stat()
    except FileNotFoundError:
        pass  # not written yet, or gone: ingest counts it like any vanished file
    except OSError as exc:  # a name too long, a file where a folder should be
        why = exc.strerror
        raise ValueError(f"the hook input's transcript_path cannot be a file: {why}") from None
    found = [path]
    if agent == "claude":  # <project>/<session>.jsonl + <project>/<session>/subagents/*.jsonl
        found += sorted((path.with_suffix("") / "subagents").glob("*.jsonl"))
    return found


def _run(cli: str, args: tuple[str, ...], root: Path) -> subprocess.CompletedProcess[str]:
    argv = [cli, *(a.format(root=root) for a in args)]
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PluginError(f"`{' '.join(argv)}` did not run: {exc}") from exc


def _commands(agent: Agent, steps: tuple[tuple[str, ...], ...], root: Path) -> list[str]:
    return [shlex.join([agent.cli, *(a.format(root=root) for a in step)]) for step in steps]


def install(agent_name: str, exe: Path) -> tuple[Path, list[str]]:
    """Render the plugin and register it with the agent's CLI; returns (root, notes)."""
    agent = AGENTS[agent_name]
    uninstall(agent_name, keep_files=True)  # a re-install replaces, never duplicates
    root = render(agent_name, exe)
    cli = shutil.which(agent.cli)
    if cli is None:
        commands = _commands(agent, agent.add, root)
        return root, [f"`{agent.cli}` is not on PATH; register the plugin with:", *commands]
    for step in agent.add:
        proc = _run(cli, step, root)
        if proc.returncode != 0:
            why = (proc.stderr or proc.stdout).strip().splitlines()
            raise PluginError(
                f"`{agent.cli} {' '.join(step[:3])}` failed: {why[-1] if why else proc.returncode}"
            )
    return root, [f"installed the {PLUGIN} plugin in {agent.cli}", agent.note]


def uninstall(
    agent_name: str, *, keep_files: bool = False, only_if_installed: bool = False
) -> list[str]:
    """Unregister the plugin (ignoring "not installed") and remove the rendered files.
    ``only_if_installed``: do nothing when install never rendered it (a plain
    ``uninstall`` must not run the agents' CLIs for a plugin it never installed)."""
    agent = AGENTS[agent_name]
    root = plugin_home() / agent_name
    if only_if_installed and not root.exists():
        return []
    cli = shutil.which(agent.cli)
    removed = False
    if cli is not None:
        for step in agent.remove:
            removed = _run(cli, step, root).returncode == 0 or removed
    notes = [f"removed the {PLUGIN} plugin from {agent.cli}"] if removed else []
    if not keep_files and root.exists():
        shutil.rmtree(root)
        notes.append(f"removed {root}")
    return notes
