"""Agent harnesses: the target role inside the real Claude Code or Codex CLI.

`ClaudeCodeRollout` and `CodexRollout` are `trainer.rollout.RolloutAdapter`s: each attempt
runs the CLI in a throwaway copy of the task's repository at its commit, with the
candidate skill installed in the copy's project skill directory and invoked, in a fresh
home, and returns an `Outcome` (answer, tool calls, changed files, exit status, checks).
`make_harness(kind, settings)` builds one by name. Nothing here knows about sessions,
SQLite or the daemon.
"""

from trainer.harness.base import HarnessRollout
from trainer.harness.claude_code import ClaudeCodeRollout
from trainer.harness.cli import CLAUDE_CODE, CODEX, CliInfo, CliNotFound, find_cli
from trainer.harness.codex import CodexRollout
from trainer.harness.settings import HarnessSettings

HARNESSES = {CLAUDE_CODE: ClaudeCodeRollout, CODEX: CodexRollout}


def make_harness(kind: str, settings: HarnessSettings) -> HarnessRollout:
    """The adapter for `kind` ("claude-code" or "codex"); CliNotFound if not installed."""
    if kind not in HARNESSES:
        raise ValueError(f"unknown harness {kind!r}; expected one of {', '.join(HARNESSES)}")
    return HARNESSES[kind](settings)


__all__ = [
    "CLAUDE_CODE",
    "CODEX",
    "HARNESSES",
    "ClaudeCodeRollout",
    "CliInfo",
    "CliNotFound",
    "CodexRollout",
    "HarnessRollout",
    "HarnessSettings",
    "find_cli",
    "make_harness",
]
