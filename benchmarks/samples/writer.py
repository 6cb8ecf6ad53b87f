"""The one session-log writer: Claude Code 2.1.x and Codex 0.12x JSONL records, as the tools
write them (see the shared docs/session_formats.md). The demo's sample sessions
(``demo_user.py``) and the generated corpus (``benchmarks/corpus.py``) plan what their
sessions say; this module writes them.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

NS = uuid.UUID("6c1f3a52-5d0e-4c47-9a57-2b1f0e6b9d10")
SKILLS = "/home/dev/.claude/skills"  # where Claude Code says a skill's files are
SAMPLE_SKILLS = (
    Path(__file__).resolve().parents[2] / "skillopt_sleep" / "data" / "samples" / "skills"
)


def uid(*parts: object) -> str:
    return str(uuid.uuid5(NS, "/".join(map(str, parts))))


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class Claude:
    """Records in the Claude Code 2.1.x shape: one record per content block."""

    def __init__(
        self, sid: str, start: datetime, cwd: str = "/home/dev/project", branch: str = "main"
    ) -> None:
        self.sid, self.t, self.parent, self.lines, self.n = sid, start, None, [], 0
        self.cwd, self.branch = cwd, branch

    def _base(self, kind: str) -> dict:
        self.n += 1
        self.t += timedelta(seconds=7, milliseconds=311 * self.n % 1000)
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": "2.1.42",
            "gitBranch": self.branch,
            "type": kind,
            "uuid": uid(self.sid, self.n),
            "timestamp": iso(self.t),
        }
        self.parent = rec["uuid"]
        return rec

    def user(self, text: str) -> None:
        rec = self._base("user")
        rec.update(
            {
                "message": {"role": "user", "content": text},
                "permissionMode": "default",
                "promptId": uid(self.sid, "p", self.n),
            }
        )
        self.lines.append(rec)

    def _assistant(self, block: dict, stop: str | None) -> None:
        rec = self._base("assistant")
        rec["message"] = {
            "model": "claude-sonnet-4-5-20250929",
            "id": f"msg_{uid(self.sid, 'm', self.n)[:24]}",
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 12,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 18210,
                "output_tokens": 95,
                "service_tier": "standard",
            },
        }
        rec["requestId"] = f"req_{uid(self.sid, 'r', self.n)[:24]}"
        self.lines.append(rec)

    def tool(self, name: str, inp: dict, output: str, result: dict) -> str:
        tid = f"toolu_{uid(self.sid, 't', self.n)[:24]}"
        self._assistant({"type": "tool_use", "id": tid, "name": name, "input": inp}, "tool_use")
        src = self.parent
        rec = self._base("user")
        rec.update(
            {
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": tid,
                            "type": "tool_result",
                            "content": output,
                            "is_error": False,
                        }
                    ],
                },
                "toolUseResult": result,
                "sourceToolAssistantUUID": src,
            }
        )
        self.lines.append(rec)
        return tid

    def text(self, text: str) -> None:
        self._assistant({"type": "text", "text": text}, "end_turn")
        rec = self._base("system")
        rec.update({"subtype": "turn_duration", "durationMs": 14250, "isMeta": False})
        self.lines.append(rec)

    def skill(self, name: str, text: str | None = None) -> None:
        """The ``Skill`` tool call and the skill body Claude Code injects (SKILL.md without
        its frontmatter; `text` is the SKILL.md, by default the bundled sample's)."""
        tid = self.tool(
            "Skill",
            {"skill": name},
            f"Launching skill: {name}",
            {"success": True, "commandName": name},
        )
        rec = self._base("user")
        rec.update(
            {
                "isMeta": True,
                "sourceToolUseID": tid,
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": f"Base directory for this skill: {SKILLS}/{name}\n\n"
                            + skill_body(name, text),
                        }
                    ],
                },
            }
        )
        self.lines.append(rec)


def skill_body(name: str, text: str | None = None) -> str:
    """What Claude Code injects when the skill runs: SKILL.md without its frontmatter."""
    if text is None:
        text = (SAMPLE_SKILLS / name / "SKILL.md").read_text()
    return text.split("---\n", 2)[2].strip() if text.startswith("---\n") else text


# One Codex exchange: (prompt, final answer, (shell command, its output)); an empty command
# runs nothing.
Exchange = tuple[str, str, tuple[str, str]]


def codex_records(sid: str, start: datetime, cwd: str, exchanges: list[Exchange],
                  ids: Callable[[str, int], str]) -> list[dict]:  # fmt: skip
    """A Codex 0.12x rollout: ``session_meta``, then per exchange ``task_started``,
    ``turn_context``, the user message, an ``exec_command`` call and its output, the final
    answer, ``token_count`` and ``task_complete``. ``ids(what, n)`` is a uuid for the n-th
    exchange's ``"codex-turn"`` or ``"call"`` (the caller's own, so its files stay stable)."""
    t = start
    lines: list[dict] = []

    def add(typ: str, payload: dict, dt: float = 0.4) -> None:
        nonlocal t
        t += timedelta(seconds=dt)
        lines.append({"timestamp": iso(t), "type": typ, "payload": payload})

    meta = {"id": sid, "timestamp": iso(t), "cwd": cwd, "originator": "codex_cli_rs",
            "cli_version": "0.128.0", "source": "cli", "model_provider": "openai",
            "base_instructions": {"text": "You are Codex, a coding agent."}}  # fmt: skip
    add("session_meta", meta)
    for n, (prompt, answer, (cmd, out)) in enumerate(exchanges):
        turn_id = "019c" + ids("codex-turn", n)[4:]
        add("event_msg", {"type": "task_started", "turn_id": turn_id,
                          "model_context_window": 258400})  # fmt: skip
        if n == 0:
            env = f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n"
            env += "</environment_context>"
            add("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": env}]})  # fmt: skip
        add("turn_context", {"turn_id": turn_id, "cwd": cwd, "approval_policy": "on-request",
                             "sandbox_policy": {"type": "workspace-write"},
                             "model": "gpt-5.2-codex", "summary": "auto"})  # fmt: skip
        add("response_item", {"type": "message", "role": "user",
                              "content": [{"type": "input_text", "text": prompt}]})  # fmt: skip
        add("event_msg", {"type": "user_message", "message": prompt, "images": []})
        if cmd:
            call = f"call_{ids('call', n)[:24]}"
            args = json.dumps({"cmd": cmd, "workdir": cwd})
            add("response_item", {"type": "function_call", "name": "exec_command",
                                  "arguments": args, "call_id": call}, 2.1)  # fmt: skip
            output = (f"Chunk ID: 7f3a{n}1\nWall time: 0.8 seconds\nProcess exited with code 0"
                      f"\nOriginal token count: 40\nOutput:\n{out}\n")  # fmt: skip
            add("response_item", {"type": "function_call_output", "call_id": call,
                                  "output": output}, 1.2)  # fmt: skip
        add("event_msg", {"type": "agent_message", "message": answer,
                          "phase": "final_answer"}, 3.3)  # fmt: skip
        add("response_item", {"type": "message", "role": "assistant", "phase": "final_answer",
                              "content": [{"type": "output_text", "text": answer}]})  # fmt: skip
        usage = {"input_tokens": 20110, "cached_input_tokens": 18944, "output_tokens": 210,
                 "reasoning_output_tokens": 64, "total_tokens": 20320}  # fmt: skip
        add("event_msg", {"type": "token_count",
                          "info": {"total_token_usage": usage, "last_token_usage": usage,
                                   "model_context_window": 258400}})  # fmt: skip
        add("event_msg", {"type": "task_complete", "turn_id": turn_id,
                          "last_agent_message": answer}, 0.1)  # fmt: skip
    return lines


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path
