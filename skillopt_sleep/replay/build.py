"""Putting agent CLIs into a night's roles: the target as a harness (with chat fallback),
the optimizer and judge as tool-less CLI chats, as `models.<role>.backend` says."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from skillopt_sleep.replay.route import Routed
from skillopt_sleep.replay.settings import (
    LOCAL,
    SECTION,
    cli_backend,
    cli_settings,
    endpoint_mode,
)
from trainer.backends.base import Roles
from trainer.harness import make_harness
from trainer.harness.chat import CliChat
from trainer.rollout import ChatRollout, RolloutAdapter


def preflight(config: Mapping[str, Any]) -> None:
    """Raise what `with_clis` would, before a night spends its ingest and mining on it: an
    agent CLI a role runs in is missing, or the sandbox it needs is."""
    from pathlib import Path

    from trainer.harness import find_cli, sandbox

    for kind in dict.fromkeys(cli_backend(config, r) for r in ("optimizer", "target", "judge")):
        if kind is None:
            continue
        path = config["harness"][SECTION[kind]]["path"]
        find_cli(kind, str(Path(path).expanduser()) if path else None)
        if config["harness"]["sandbox"]:
            sandbox.require()


@contextlib.contextmanager
def with_clis(
    config: Mapping[str, Any], roles: Roles, environ: Mapping[str, str]
) -> Iterator[tuple[Roles, RolloutAdapter]]:
    """(roles, target rollout adapter) with the CLI backends in place. The embedded server
    the CLIs use offline is started here, once, and stopped on exit."""
    with contextlib.ExitStack() as stack:
        urls: dict[str, str] = {}

        def settings(kind: str, role: str):
            if endpoint_mode(config, kind, environ) == LOCAL and "url" not in urls:
                urls["url"] = stack.enter_context(embedded_server(config)).base_url
            return cli_settings(config, kind, environ, role=role, local_url=urls.get("url"))

        chats = {}
        for role in ("optimizer", "judge"):
            kind = cli_backend(config, role)
            if kind:
                chats[role] = CliChat(kind, settings(kind, role))
                stack.callback(chats[role].harness.close)  # its relay
        roles = Roles(
            optimizer=chats.get("optimizer", roles.optimizer),
            target=roles.target,
            judge=chats.get("judge", roles.judge),
        )
        chat = ChatRollout(roles.target)
        kind = cli_backend(config, "target")
        if kind is None:
            yield roles, chat
            return
        harness = make_harness(kind, settings(kind, "target"))
        stack.callback(harness.close)
        yield roles, Routed(harness, kind, chat)


@contextlib.contextmanager
def embedded_server(config: Mapping[str, Any]) -> Iterator[Any]:
    """The embedded llama.cpp server for the CLIs: the target's local model, a context
    long enough for their prompts, one slot per concurrent rollout, and the per-request
    output cap enforced on the server's side (Codex sends none)."""
    from skillopt_sleep.replay.settings import local_model
    from trainer.backends.local import LocalModelUnavailable, LocalServer

    h = config["harness"]
    local = config["models"].get("local") or {}
    if not hasattr(LocalServer, "for_model"):  # the embedded Qwen models are not packaged
        raise LocalModelUnavailable(
            f"the agent CLIs need the embedded model {local_model(config)!r} offline, which "
            "this install does not ship; set harness.<cli>.base_url or a key/login"
        )
    server = LocalServer.for_model(
        local_model(config),
        n_ctx=int(h["local_n_ctx"]),
        parallel=int(h["concurrency"]),
        threads=int(local.get("threads") or 1),
        max_tokens=int(h["max_output_tokens"]),
    )
    with server:
        yield server
