"""The `harness:` config section, read into `trainer.harness.HarnessSettings`.

Which role runs where is `models.<role>.backend`: `claude-code` or `codex` puts the role
in that CLI (the target with tools, in a copy of the task's repository; the optimizer and
judge with none); anything else leaves it to the chat backends (`models.backend`).

A CLI's endpoint, in order: its `base_url`; else its `login_file` (the CLI's own
provider, the user's login copied into the isolated home); else its `api_key_env` when
that variable is set (the CLI's own provider with the key); else the embedded llama.cpp
server, which speaks `/v1/messages` and `/v1/responses`, offline.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillopt_sleep import config as config_mod
from trainer.backends.prices import FREE, Price, role_price
from trainer.harness import CLAUDE_CODE, CODEX, HarnessSettings

CLI_BACKENDS = (CLAUDE_CODE, CODEX)
SECTION = {CLAUDE_CODE: "claude_code", CODEX: "codex"}
URL, LOGIN, KEY, LOCAL = "url", "login", "key", "local"


CHAT_BACKENDS = ("openai", "local", "sim")


def cli_backend(config: Mapping[str, Any], role: str) -> str | None:
    """`claude-code` / `codex` when the role runs in an agent CLI, else None (the chat
    backends of `models.backend`). Raises ValueError for anything else: a per-role chat
    backend other than `models.backend`'s is not supported."""
    kind = (config["models"].get(role) or {}).get("backend")
    if kind is None or kind in CLI_BACKENDS:
        return kind
    if kind in CHAT_BACKENDS and kind == config["models"].get("backend"):
        return None
    if kind in CHAT_BACKENDS:
        raise ValueError(
            f"models.{role}.backend {kind!r}: a role can run in claude-code or codex, or on "
            f"models.backend ({config['models'].get('backend')!r}); set models.backend"
        )
    raise ValueError(
        f"models.{role}.backend must be one of claude-code, codex, "
        f"{', '.join(CHAT_BACKENDS)} or null, got {kind!r}"
    )


def endpoint_mode(config: Mapping[str, Any], kind: str, environ: Mapping[str, str]) -> str:
    c = config["harness"][SECTION[kind]]
    if c["base_url"]:
        return URL
    if c["login_file"]:
        return LOGIN
    if environ.get(c["api_key_env"]):
        return KEY
    return LOCAL


def cli_price(config: Mapping[str, Any], kind: str, role: str, mode: str) -> Price | None:
    """What the CLI's tokens cost in this role: free on the embedded server; else the
    role's own prices (`models.<role>`, wherever it runs), the rest from the price table
    for the CLI's model; None when unknown (the CLI's default model has no name here)."""
    if mode == LOCAL:
        return FREE
    own = config["models"].get(role) or {}
    c = config["harness"][SECTION[kind]]
    return role_price(
        c["model"], c["base_url"], own.get("price_in_per_mtok"), own.get("price_out_per_mtok")
    )


def work_dir(config: Mapping[str, Any]) -> Path:
    configured = config["harness"]["work_dir"]
    return Path(configured).expanduser() if configured else config_mod.state_dir(config) / "harness"


def local_model(config: Mapping[str, Any]) -> str:
    """The embedded model the CLIs use offline: the target's local model."""
    local = config["models"].get("local") or {}
    return str(local.get("target") or "qwen2.5-coder-0.5b")


def cli_settings(
    config: Mapping[str, Any],
    kind: str,
    environ: Mapping[str, str],
    *,
    role: str = "target",
    local_url: str | None = None,
) -> HarnessSettings:
    """Settings for `kind`; `local_url` is the embedded server's `.../v1` in LOCAL mode."""
    h = config["harness"]
    c = h[SECTION[kind]]
    mode = endpoint_mode(config, kind, environ)
    price = cli_price(config, kind, role, mode)
    common: dict[str, Any] = {
        "work_dir": work_dir(config),
        "cli_path": str(Path(c["path"]).expanduser()) if c["path"] else None,
        "model": c["model"],
        "max_turns": int(h["max_turns"]),
        "max_output_tokens": int(h["max_output_tokens"]),
        "timeout_s": float(h["timeout_s"]),
        "setup_timeout_s": float(h["setup_timeout_s"]),
        "check_timeout_s": float(h["check_timeout_s"]),
        "concurrency": int(h["concurrency"]),
        "tools": tuple(h["tools"]),
        "env_passthrough": tuple(h["env_passthrough"]),
        "sandbox": bool(h["sandbox"]),
        "read_only": tuple(str(p) for p in h["sandbox_read_only"]),
        "price_in_per_mtok": price.input_per_mtok if price else None,
        "price_out_per_mtok": price.output_per_mtok if price else None,
    }
    if mode == URL:
        return HarnessSettings(
            **common, base_url=c["base_url"], endpoint=c["base_url"],
            api_key=environ.get(c["api_key_env"]) or None,
        )  # fmt: skip
    if mode == LOGIN:
        return HarnessSettings(
            **common, login_file=str(Path(c["login_file"]).expanduser()), endpoint="login"
        )
    if mode == KEY:
        return HarnessSettings(**common, api_key=environ[c["api_key_env"]], endpoint="key")
    if local_url is None:
        raise ValueError(f"{kind} runs on the embedded server, but it is not started")
    model = local_model(config)
    base = local_url if kind == CODEX else local_url.removesuffix("/v1")
    common.update(model=c["model"] or model)
    return HarnessSettings(
        **common, base_url=base, endpoint=f"local:{model}", api_key="local",
        context_window=int(h["local_n_ctx"]),
    )  # fmt: skip
