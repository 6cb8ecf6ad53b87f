"""Settings of a harness rollout: which CLI, which model endpoint, and the limits."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from trainer.backends.prices import Price

# Claude Code's tools for a replay: enough to read, edit and run things in the copy; no
# web, no subagents, no notebooks. `--tools` (not `--allowedTools`) is what restricts.
CLAUDE_TOOLS = ("Bash", "Read", "Edit", "Write", "Glob", "Grep")


@dataclass(frozen=True)
class HarnessSettings:
    """One harness target. `work_dir` holds the slots (copies, homes) and template homes.

    `endpoint` names the model endpoint in cache keys (the embedded server's port changes
    every run, its model does not); `base_url` is where the CLI sends requests, None for
    the CLI's own provider (a subscription login, whose credentials file `login_file` is
    copied into the template home; nothing of the user's home is visible otherwise).
    """

    work_dir: Path
    cli_path: str | None = None  # None: found on PATH
    model: str | None = None  # None: the CLI's default model
    base_url: str | None = None
    endpoint: str = "default"
    api_key: str | None = field(default=None, repr=False)
    login_file: str | None = None
    max_turns: int = 8  # Claude Code only; Codex has no such limit (timeout_s bounds it)
    max_output_tokens: int = 1024  # per model request (Claude Code: CLAUDE_CODE_MAX_OUTPUT_TOKENS)
    context_window: int | None = None  # tell Codex the model's window (local models)
    timeout_s: float = 900.0  # wall clock per rollout, CLI start to exit
    setup_timeout_s: float = 300.0
    check_timeout_s: float = 300.0
    concurrency: int = 1
    tools: tuple[str, ...] = CLAUDE_TOOLS
    env_passthrough: tuple[str, ...] = ("PATH",)  # variables the agent's commands inherit
    # USD per million tokens of the CLI's model; None = unknown (counted as $0, reported)
    price_in_per_mtok: float | None = 0.0
    price_out_per_mtok: float | None = 0.0
    sandbox: bool = True  # confine every command (sandbox.py); False only by the user's choice
    read_only: tuple[str, ...] = ()  # more folders the confined commands may read

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError("harness concurrency must be >= 1")
        if self.max_turns < 1 or self.max_output_tokens < 1 or self.timeout_s <= 0:
            raise ValueError("harness max_turns, max_output_tokens and timeout_s must be > 0")

    def outcome_settings(self) -> dict[str, Any]:
        """What changes outcomes (for the cache key): not paths, keys, prices, concurrency."""
        d = asdict(self)
        for k in ("work_dir", "cli_path", "base_url", "api_key", "login_file", "concurrency"):
            d.pop(k)
        for k in ("price_in_per_mtok", "price_out_per_mtok", "setup_timeout_s", "read_only"):
            d.pop(k)
        d["login"] = self.login_file is not None
        return d

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD of a rollout's tokens; 0.0 when the price is unknown."""
        if self.price_in_per_mtok is None or self.price_out_per_mtok is None:
            return 0.0
        return Price(self.price_in_per_mtok, self.price_out_per_mtok).cost(
            input_tokens, output_tokens
        )


def short_hash(value: Any) -> str:
    blob = json.dumps(value, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:12]
