"""A chat backend over an agent CLI with no tools: the optimizer and judge roles for a user
who has only a Claude Code or Codex login (no API key).

`claude -p --tools ""` answers with no tool at all; `codex exec` has no such switch, so it
runs with the features that add tools switched off and, like a rollout, in our sandbox
(an empty working directory, no network but the model, nothing of the disk but the system;
unconfined, in Codex's own read-only sandbox). The system message becomes the CLI's system
prompt (a file for `--system-prompt-file`; Codex `developer_instructions` in the scratch
home's config), the rest of the conversation the prompt, on stdin: no text of a call is in
an argv that `ps` shows. A JSON schema is asked for in words and the answer repaired by the
caller (`trainer.scoring.read_json`), as for endpoints that refuse `response_format`.
Each call runs in a slot with a fresh home from the harness's template, like a rollout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trainer.backends.base import Completion, InfraError, Message
from trainer.harness.base import HarnessRollout
from trainer.harness.claude_code import ClaudeCodeRollout
from trainer.harness.codex import CodexRollout
from trainer.harness.procs import reap
from trainer.harness.settings import HarnessSettings
from trainer.harness.slots import Slot, SlotPool


def _flatten(messages: list[Message]) -> tuple[str, str]:
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    rest = [m for m in messages if m["role"] != "system"]
    if len(rest) == 1:
        return system, rest[0]["content"]
    turns = [f"{m['role'].capitalize()}: {m['content']}" for m in rest]
    return system, "\n\n".join(turns)


class CliChat:
    """`ChatBackend` over `claude -p` or `codex exec`, tool-less, isolated per call."""

    def __init__(self, kind: str, settings: HarnessSettings) -> None:
        cls = {ClaudeCodeRollout.kind: ClaudeCodeRollout, CodexRollout.kind: CodexRollout}[kind]
        self.harness: HarnessRollout = cls(settings)
        self.kind = kind
        self.concurrency = settings.concurrency
        self.identity = f"chat-{self.harness.identity}"
        self.pool = SlotPool(settings.work_dir, f"{kind}-chat", settings.concurrency)

    def complete(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        system, prompt = _flatten(messages)
        if json_schema is not None:
            prompt += (
                "\n\nAnswer with one JSON object only, matching this JSON schema:\n"
                + json.dumps(json_schema, sort_keys=True)
            )
        with self.pool.slot() as slot:
            slot.new_token()
            try:
                return self._call(slot, system, prompt)
            finally:
                reap(slot.token)
                slot.clear()

    def _call(self, slot: Slot, system: str, prompt: str) -> Completion:
        h = self.harness
        h.fresh_home(slot)
        slot.repo.path.mkdir(parents=True)
        env = h.base_env(slot)
        if self.kind == ClaudeCodeRollout.kind:
            argv = [h.cli.path, "-p", "--output-format", "json", "--tools", ""]
            argv += ["--max-turns", "1", "--strict-mcp-config", "--setting-sources", "user"]
            if system:
                path = slot.home / "system-prompt.md"
                path.write_text(system, encoding="utf-8")
                argv += ["--system-prompt-file", str(path)]
            argv += ["--model", h.settings.model] if h.settings.model else []
        else:
            mode = "danger-full-access" if h.confined else "read-only"
            argv = [h.cli.path, "exec", "--json", "--skip-git-repo-check", "-s", mode, "-"]
            if system:  # a top-level key: before the file's first table
                config = slot.home / ".codex" / "config.toml"
                top = f"developer_instructions = {json.dumps(system)}\n"
                config.write_text(top + config.read_text(encoding="utf-8"), encoding="utf-8")
        rc, timed_out, fatal = h.run_cli(slot, h.jail(slot), argv, env, prompt)
        if fatal or timed_out:
            raise InfraError(f"{self.kind} chat: {fatal or 'timed out'}")
        read = _claude_answer if self.kind == ClaudeCodeRollout.kind else _codex_answer
        text, usage = read(slot.stdout)
        if text is None:
            raise InfraError(f"{self.kind} chat: no answer (exit {rc})")
        tin, tout = usage
        return Completion(text, tin, tout, h.settings.cost(tin, tout))


def _lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_bytes().splitlines():
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _claude_answer(path: Path) -> tuple[str | None, tuple[int, int]]:
    for rec in reversed(_lines(path)):
        if rec.get("type") == "result":
            if rec.get("is_error"):
                raise InfraError(f"claude-code chat: {str(rec.get('result'))[:200]}")
            u = rec.get("usage") or {}
            keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            tin = sum(int(u.get(k) or 0) for k in keys)
            return str(rec.get("result", "")), (tin, int(u.get("output_tokens") or 0))
    return None, (0, 0)


def _codex_answer(path: Path) -> tuple[str | None, tuple[int, int]]:
    text, usage = None, (0, 0)
    for rec in _lines(path):
        item = rec.get("item") if isinstance(rec.get("item"), dict) else {}
        if rec.get("type") == "item.completed" and item.get("type") == "agent_message":
            text = str(item.get("text", ""))
        elif rec.get("type") == "turn.completed":
            u = rec.get("usage") or {}
            usage = (int(u.get("input_tokens") or 0), int(u.get("output_tokens") or 0))
        elif rec.get("type") == "turn.failed":
            raise InfraError(f"codex chat: {str(rec.get('error'))[:200]}")
    return text, usage
