"""Session-log writers for the generated users, in the shapes of real files.

Written for this package, apart from the demo samples' writer, and modelled on the real logs
in ``shared/fixtures/real`` (see ``shared/docs/session_formats.md``):

* ``ClaudeSession``: Claude Code 2.1.x, ``projects/<cwd with non-alphanumerics as ->/<id>.jsonl``;
  a ``file-history-snapshot`` before each prompt, one ``assistant`` record per content block
  (thinking, text, tool_use) sharing ``message.id``, ``tool_result`` user records with
  ``toolUseResult`` and ``sourceToolAssistantUUID``, ``slug`` from the second turn on, and a
  ``system``/``turn_duration`` record closing each turn.
* ``CodexSession``: Codex CLI 0.125 TUI, ``sessions/YYYY/MM/DD/rollout-<local time>-<uuid7>.jsonl``
  (local date and time, UTC timestamps inside); ``session_meta`` with ``base_instructions`` and
  ``git``, then per turn ``task_started``, ``turn_context``, the user message as a
  ``response_item`` and an ``event_msg/user_message``, encrypted ``reasoning``,
  ``exec_command`` calls with unified-exec outputs and ``exec_command_end``, the final answer
  as ``agent_message`` and ``response_item``, ``token_count`` and ``task_complete``. The first
  turn also carries the harness-injected permissions, AGENTS.md and environment messages.

Everything random (ids, signatures, token counts, pauses) comes from the caller's
``random.Random``, so a seed gives the same bytes.
"""

from __future__ import annotations

import base64
import json
import random
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

TZ = ZoneInfo("Europe/Berlin")
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_SLUG_WORDS = (
    ("quiet", "amber", "brisk", "gentle", "lucid", "nimble", "sunny", "woven"),
    ("humming", "drifting", "folding", "sailing", "wandering", "glowing", "rolling"),
    ("lantern", "harbor", "meadow", "falcon", "pebble", "orchard", "comet", "thistle"),
)


@dataclass(frozen=True)
class Command:
    """A shell command the agent ran, what it printed and its exit code."""

    cmd: str
    output: str
    exit_code: int = 0


def iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def uuid7(rng: random.Random, t: datetime) -> str:
    """A time-ordered UUID v7, as Codex uses for thread and turn ids."""
    ms = int(t.timestamp() * 1000)
    value = (ms << 80) | (0x7 << 76) | (rng.getrandbits(12) << 64) | (0b10 << 62)
    return str(uuid.UUID(int=value | rng.getrandbits(62)))


def _b62(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_B62) for _ in range(n))


def _blob(rng: random.Random, n: int) -> str:
    return base64.b64encode(rng.randbytes(n)).decode()


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)
    path.write_text(text, encoding="utf-8")


class ClaudeSession:
    """One Claude Code 2.1.x transcript, written prompt by prompt."""

    VERSION = "2.1.62"
    MODEL = "claude-sonnet-4-5-20250929"

    def __init__(self, rng: random.Random, cwd: str, branch: str, start: datetime) -> None:
        self.rng, self.cwd, self.branch, self.t = rng, cwd, branch, start
        self.sid = uuid4(rng)
        self.slug = "-".join(rng.choice(words) for words in _SLUG_WORDS)
        self.records: list[dict] = []
        self.parent: str | None = None
        self.turns = 0

    def _tick(self, lo: float, hi: float) -> str:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return iso(self.t)

    def _base(self, kind: str) -> dict:
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": self.VERSION,
            "gitBranch": self.branch,
        }
        if self.turns > 1:
            rec["slug"] = self.slug
        rec["type"] = kind
        return rec

    def _add(self, rec: dict) -> str:
        rec["uuid"] = uuid4(self.rng)
        self.parent = rec["uuid"]
        self.records.append(rec)
        return rec["uuid"]

    def wait(self, seconds: float) -> None:
        """The user reads, thinks, types: time passes before the next prompt."""
        self.t += timedelta(seconds=seconds)

    def prompt(self, text: str) -> None:
        self.turns += 1
        uid = uuid4(self.rng)
        stamp = self._tick(1, 3)
        snap = {"messageId": uid, "trackedFileBackups": {}, "timestamp": stamp}
        self.records.append(
            {
                "type": "file-history-snapshot",
                "messageId": uid,
                "snapshot": snap,
                "isSnapshotUpdate": False,
            }
        )
        rec = self._base("user")
        rec.update(
            {
                "message": {"role": "user", "content": text},
                "uuid": uid,
                "timestamp": stamp,
                "thinkingMetadata": {"maxThinkingTokens": 31999},
                "todos": [],
                "permissionMode": "default",
            }
        )
        self.parent = uid
        self.records.append(rec)
        self._turn_start = self.t

    def _assistant(self, msg_id: str, req_id: str, block: dict, out_tokens: int) -> str:
        cache = self.rng.randint(900, 4000)
        rec = self._base("assistant")
        rec["message"] = {
            "model": self.MODEL,
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": self.rng.randint(3, 9),
                "cache_creation_input_tokens": cache,
                "cache_read_input_tokens": self.rng.randint(15000, 40000),
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 0,
                    "ephemeral_1h_input_tokens": cache,
                },
                "output_tokens": out_tokens,
                "service_tier": "standard",
            },
        }
        rec["requestId"] = req_id
        rec["timestamp"] = self._tick(0.4, 4)
        return self._add(rec)

    def answer(
        self, text: str, thinking: str | None = None, commands: tuple[Command, ...] = ()
    ) -> None:
        """The agent's turn: optional thinking, shell commands and their results, the text."""
        msg_id, req_id = f"msg_01{_b62(self.rng, 22)}", f"req_011C{_b62(self.rng, 18)}"
        tokens = self.rng.randint(40, 400)
        if thinking:
            block = {"type": "thinking", "thinking": thinking, "signature": _blob(self.rng, 180)}
            self._assistant(msg_id, req_id, block, tokens)
        for c in commands:
            tool_id = f"toolu_01{_b62(self.rng, 22)}"
            block = {
                "type": "tool_use",
                "id": tool_id,
                "name": "Bash",
                "input": {"command": c.cmd, "description": _describe(c.cmd)},
                "caller": {"type": "direct"},
            }
            source = self._assistant(msg_id, req_id, block, tokens)
            result = {
                "tool_use_id": tool_id,
                "type": "tool_result",
                "content": c.output,
                "is_error": c.exit_code != 0,
            }
            rec = self._base("user")
            rec.update(
                {
                    "message": {"role": "user", "content": [result]},
                    "timestamp": self._tick(0.5, 6),
                    "toolUseResult": {
                        "stdout": c.output,
                        "stderr": "",
                        "interrupted": False,
                        "isImage": False,
                    },
                    "sourceToolAssistantUUID": source,
                }
            )
            self._add(rec)
            msg_id, req_id = f"msg_01{_b62(self.rng, 22)}", f"req_011C{_b62(self.rng, 18)}"
        self._assistant(msg_id, req_id, {"type": "text", "text": text}, tokens)
        rec = self._base("system")
        ms = int((self.t - self._turn_start).total_seconds() * 1000)
        rec.update(
            {
                "subtype": "turn_duration",
                "durationMs": ms,
                "timestamp": self._tick(0.01, 0.05),
                "isMeta": False,
            }
        )
        self._add(rec)

    def write(self, root: Path) -> Path:
        path = root / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", self.cwd) / f"{self.sid}.jsonl"
        write_jsonl(path, self.records)
        return path


def _describe(cmd: str) -> str:
    return "Run " + cmd.split()[0] if cmd.split() else "Run command"


_PERMISSIONS = (
    "<permissions instructions>\nFilesystem sandboxing defines which files can be read or "
    "written. `sandbox_mode` is `workspace-write`: The sandbox permits reading files, and "
    "editing files in `cwd` and `writable_roots`. Editing files in other directories requires "
    "approval. Network access is restricted.\n</permissions instructions>"
)
_BASE_INSTRUCTIONS = (
    "You are Codex, a coding agent based on GPT-5. You and the user share one workspace, and "
    "your job is to collaborate with them until their goal is genuinely handled."
)


class CodexSession:
    """One Codex CLI 0.125 rollout, written turn by turn."""

    VERSION = "0.125.0"
    MODEL = "gpt-5.5"

    def __init__(
        self, rng: random.Random, cwd: str, branch: str, start: datetime, agents_md: str
    ) -> None:
        self.rng, self.cwd, self.t, self.start = rng, cwd, start, start
        self.sid = uuid7(rng, start)
        self.agents_md = agents_md
        self.records: list[dict] = []
        self.turns = 0
        self.usage = {
            "input_tokens": 0,
            "cached_input_tokens": 0,
            "output_tokens": 0,
            "reasoning_output_tokens": 0,
            "total_tokens": 0,
        }
        repo = cwd.rsplit("/", 1)[-1]
        meta = {
            "id": self.sid,
            "timestamp": iso(start),
            "cwd": cwd,
            "originator": "codex-tui",
            "cli_version": self.VERSION,
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": {"text": _BASE_INSTRUCTIONS},
            "git": {
                "commit_hash": rng.randbytes(20).hex(),
                "branch": branch,
                "repository_url": f"git@github.com:ledgerline/{repo}.git",
            },
        }
        self._add("session_meta", meta, 1.5, 4)

    def _add(self, kind: str, payload: dict, lo: float = 0.0, hi: float = 0.01) -> None:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        self.records.append({"timestamp": iso(self.t), "type": kind, "payload": payload})

    def _event(self, payload: dict, lo: float = 0.0, hi: float = 0.01) -> None:
        self._add("event_msg", payload, lo, hi)

    def _item(self, payload: dict, lo: float = 0.0, hi: float = 0.01) -> None:
        self._add("response_item", payload, lo, hi)

    def _message(self, role: str, text: str, **extra: str) -> None:
        kind = "output_text" if role == "assistant" else "input_text"
        self._item(
            {"type": "message", "role": role, "content": [{"type": kind, "text": text}], **extra}
        )

    def wait(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)

    def _tokens(self) -> None:
        last = {"input_tokens": self.rng.randint(18000, 30000)}
        last["cached_input_tokens"] = last["input_tokens"] - self.rng.randint(300, 3000)
        last["output_tokens"] = self.rng.randint(30, 500)
        last["reasoning_output_tokens"] = self.rng.randint(0, 120)
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        for k, v in last.items():
            self.usage[k] += v
        self._event(
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": dict(self.usage),
                    "last_token_usage": last,
                    "model_context_window": 258400,
                },
                "rate_limits": None,
            }
        )

    def turn(self, prompt: str, answer: str, commands: tuple[Command, ...] = ()) -> None:
        """One user prompt and the agent's work on it."""
        self.turns += 1
        turn_id = uuid7(self.rng, self.t)
        self._event(
            {
                "type": "task_started",
                "turn_id": turn_id,
                "started_at": int(self.t.timestamp()),
                "model_context_window": 258400,
                "collaboration_mode_kind": "default",
            },
            0.5,
            2,
        )
        begun = self.t
        if self.turns == 1:
            self._message("developer", _PERMISSIONS)
            self._message(
                "user",
                f"# AGENTS.md instructions for {self.cwd}\n\n<INSTRUCTIONS>\n"
                f"{self.agents_md}\n</INSTRUCTIONS>",
            )
            env = (
                f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>zsh</shell>\n"
                f"  <current_date>{self.t.astimezone(TZ).date()}</current_date>\n"
                "  <timezone>Europe/Berlin</timezone>\n</environment_context>"
            )
            self._message("user", env)
        self._add(
            "turn_context",
            {
                "turn_id": turn_id,
                "cwd": self.cwd,
                "current_date": str(self.t.astimezone(TZ).date()),
                "timezone": "Europe/Berlin",
                "approval_policy": "on-request",
                "sandbox_policy": {
                    "type": "workspace-write",
                    "writable_roots": [],
                    "network_access": False,
                    "exclude_tmpdir_env_var": False,
                    "exclude_slash_tmp": False,
                },
                "model": self.MODEL,
                "personality": "pragmatic",
                "collaboration_mode": {
                    "mode": "default",
                    "settings": {"model": self.MODEL, "reasoning_effort": "medium"},
                },
                "realtime_active": False,
                "effort": "medium",
                "summary": "none",
            },
        )
        self._message("user", prompt)
        self._event(
            {
                "type": "user_message",
                "message": prompt,
                "images": [],
                "local_images": [],
                "text_elements": [],
            }
        )
        self._item(
            {
                "type": "reasoning",
                "summary": [],
                "content": None,
                "encrypted_content": "gAAAAAB"
                + base64.urlsafe_b64encode(self.rng.randbytes(240)).decode(),
            },
            2,
            6,
        )
        for c in commands:
            call = f"call_{_b62(self.rng, 24)}"
            args = {
                "cmd": c.cmd,
                "workdir": self.cwd,
                "yield_time_ms": 1000,
                "max_output_tokens": 12000,
            }
            self._item(
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps(args),
                    "call_id": call,
                },
                0.5,
                2,
            )
            self._tokens()
            took = self.rng.uniform(0.05, 3)
            out = (
                f"Chunk ID: {self.rng.randbytes(3).hex()}\nWall time: {took:.4f} seconds\n"
                f"Process exited with code {c.exit_code}\n"
                f"Original token count: {len(c.output) // 4}\nOutput:\n{c.output}"
            )
            self._item({"type": "function_call_output", "call_id": call, "output": out}, took, took)
            self._event(
                {
                    "type": "exec_command_end",
                    "call_id": call,
                    "process_id": str(self.rng.randint(1000, 99999)),
                    "turn_id": turn_id,
                    "command": ["/bin/zsh", "-lc", c.cmd],
                    "cwd": self.cwd,
                    "parsed_cmd": [{"type": "unknown", "cmd": c.cmd}],
                    "source": "unified_exec_startup",
                    "stdout": "",
                    "stderr": "",
                    "aggregated_output": c.output,
                    "exit_code": c.exit_code,
                    "duration": {"secs": int(took), "nanos": int(took % 1 * 1e9)},
                    "formatted_output": "",
                    "status": "completed",
                },
                0.01,
                0.1,
            )
        self._event(
            {
                "type": "agent_message",
                "message": answer,
                "phase": "final_answer",
                "memory_citation": None,
            },
            1,
            8,
        )
        self._message("assistant", answer, phase="final_answer")
        self._tokens()
        ms = int((self.t - begun).total_seconds() * 1000)
        self._event(
            {
                "type": "task_complete",
                "turn_id": turn_id,
                "last_agent_message": answer,
                "completed_at": int(self.t.timestamp()),
                "duration_ms": ms,
                "time_to_first_token_ms": self.rng.randint(900, 5000),
            },
            0.01,
            0.05,
        )

    def write(self, root: Path) -> Path:
        local = self.start.astimezone(TZ)
        folder = root / "sessions" / f"{local:%Y}" / f"{local:%m}" / f"{local:%d}"
        path = folder / f"rollout-{local:%Y-%m-%dT%H-%M-%S}-{self.sid}.jsonl"
        write_jsonl(path, self.records)
        return path
