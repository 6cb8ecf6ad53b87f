"""Codex rollouts (2026 envelope format), line by line as the TUI persists them.

Shapes follow ``docs/session_formats.md`` and the real rollouts in ``shared/fixtures/real``
(0.125 TUI, 0.135): ``session_meta``, per turn ``task_started`` → ``turn_context`` → the
prompt as a ``response_item`` user message and an ``event_msg/user_message`` → reasoning,
commentary, tool calls → ``agent_message`` final answer → ``token_count`` →
``task_complete``. Commands run through ``exec_command`` (unified exec: "Chunk ID … Process
exited with code N" output plus an ``exec_command_end`` event with ``parsed_cmd``) or, in
sessions on a model that uses it, ``shell_command`` ("Exit code: N" output); reads, greps
and globs are shell commands (``sed -n``, ``rg``); edits are ``apply_patch`` custom tool
calls with ``patch_apply_end``. ``$name`` in a prompt injects ``<skill>…</skill>`` after it.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import orjson

from benchmarks.sessions import heldout_files as F
from benchmarks.sessions.heldout_claude import iso
from benchmarks.sessions.heldout_plans import Plan, Step
from benchmarks.sessions.heldout_world import codex_skill_path, skill_md

BASE = (
    "You are Codex, a coding agent. You and the user share one workspace; keep changes "
    "small, run the project's checks, and say what you changed."
)
PERMISSIONS = (
    "<permissions instructions>\nFilesystem sandboxing defines which files can be "
    "read or written. `sandbox_mode` is `workspace-write`. Network access is "
    "restricted.\n</permissions instructions>"
)
AGENTS = "Run `pytest -q` before finishing. Keep commits small. Use uv, not pip, to install."
TZ = "Asia/Kolkata"
_SLOW = ("pytest", "python -m pytest", "for ", "make", "uv ", "alembic", "gh ", "pip ")
_ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def uuid7(rng: random.Random, t: datetime) -> str:
    ms = int(t.timestamp() * 1000)
    h = f"{ms:012x}"
    r = f"{rng.getrandbits(76):019x}"
    return f"{h[:8]}-{h[8:12]}-7{r[:3]}-{'89ab'[rng.getrandbits(2)]}{r[3:6]}-{r[6:18]}"


class CodexSession:
    """One rollout, built in memory and returned as bytes."""

    def __init__(
        self,
        rng: random.Random,
        sid: str,
        cwd: str,
        branch: str,
        cli: str,
        model: str,
        start: datetime,
        local: datetime,
        shell: str,
        agents_md: bool,
    ) -> None:
        self.rng, self.cwd, self.model, self.t, self.local = rng, cwd, model, start, local
        self.shell = shell  # "exec_command" | "shell_command"
        self.lines: list[bytes] = []
        self.tokens = [0, 0]
        self.turn_id = ""
        self.first = True
        self.agents_md = agents_md
        self._line(
            "session_meta",
            {
                "id": sid,
                "timestamp": iso(start),
                "cwd": cwd,
                "originator": "codex-tui",
                "cli_version": cli,
                "source": "cli",
                "model_provider": "openai",
                "base_instructions": {"text": BASE},
                "git": {
                    "commit_hash": F.hexid(rng, 40),
                    "branch": branch,
                    "repository_url": f"git@github.com:dana/{cwd.rsplit('/', 1)[-1]}.git",
                },
            },
        )

    def _line(self, kind: str, payload: dict[str, Any]) -> None:
        self.lines.append(
            orjson.dumps({"timestamp": iso(self.t), "type": kind, "payload": payload})
        )

    def _tick(self, lo: float, hi: float) -> None:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))

    def _item(self, payload: dict[str, Any]) -> None:
        self._line("response_item", payload)

    def _event(self, payload: dict[str, Any]) -> None:
        self._line("event_msg", payload)

    def _message(self, role: str, text: str, **extra: Any) -> None:
        kind = "output_text" if role == "assistant" else "input_text"
        self._item(
            {"type": "message", "role": role, "content": [{"type": kind, "text": text}], **extra}
        )

    def _tokens(self) -> None:
        last = [self.rng.randint(9000, 40000), self.rng.randint(20, 600)]
        self.tokens = [self.tokens[0] + last[0], self.tokens[1] + last[1]]
        self._event(
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": _usage(*self.tokens),
                    "last_token_usage": _usage(*last),
                    "model_context_window": 258400,
                },
                "rate_limits": None,
            }
        )

    # -------------------------------------------------------------- turns

    def prompt(self, text: str, gap: float = 0, skill: str | None = None) -> None:
        self.t += timedelta(seconds=gap)
        self._tick(0.5, 3)
        self.turn_id = uuid7(self.rng, self.t)
        self._event(
            {
                "type": "task_started",
                "turn_id": self.turn_id,
                "started_at": int(self.t.timestamp()),
                "model_context_window": 258400,
                "collaboration_mode_kind": "default",
            }
        )
        if self.first:
            self.first = False
            self._message("developer", PERMISSIONS)
            if self.agents_md:
                self._message(
                    "user",
                    f"# AGENTS.md instructions for {self.cwd}\n\n"
                    f"<INSTRUCTIONS>\n{AGENTS}\n</INSTRUCTIONS>",
                )
            self._message(
                "user",
                f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>bash"
                f"</shell>\n  <current_date>{self.local:%Y-%m-%d}</current_date>"
                f"\n  <timezone>{TZ}</timezone>\n</environment_context>",
            )
        self._line(
            "turn_context",
            {
                "turn_id": self.turn_id,
                "cwd": self.cwd,
                "current_date": f"{self.local:%Y-%m-%d}",
                "timezone": TZ,
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write", "network_access": False},
                "model": self.model,
                "effort": "medium",
                "summary": "auto",
            },
        )
        self._message("user", text)
        self._event(
            {
                "type": "user_message",
                "message": text,
                "images": [],
                "local_images": [],
                "text_elements": [],
            }
        )
        if skill:
            self._message(
                "user",
                f"<skill>\n<name>{skill}</name>\n<path>{codex_skill_path(skill)}"
                f"</path>\n{skill_md(skill)}</skill>",
            )

    def work(self, plan: Plan) -> None:
        """The agent's turn. It ends early when the user stops a patch."""
        rng, started = self.rng, self.t
        self._tick(1, 5)
        self._item(
            {
                "type": "reasoning",
                "summary": [],
                "content": None,
                "encrypted_content": "gAAAAAB" + F.hexid(rng, 160),
            }
        )
        for st in plan.steps:
            if st.say:
                self._event(
                    {
                        "type": "agent_message",
                        "message": st.say,
                        "phase": "commentary",
                        "memory_citation": None,
                    }
                )
                self._message("assistant", st.say, phase="commentary")
            if st.tool in ("edit", "write"):
                if not self._patch(st):
                    return
            else:
                out = skill_md(st.arg) if st.tool == "skill" else st.out
                self._run(_command(st), out, st.code, st)
        self._tick(1, 6)
        self._event(
            {
                "type": "agent_message",
                "message": plan.answer,
                "phase": "final_answer",
                "memory_citation": None,
            }
        )
        self._message("assistant", plan.answer, phase="final_answer")
        self._tokens()
        self._event(
            {
                "type": "task_complete",
                "turn_id": self.turn_id,
                "last_agent_message": plan.answer,
                "completed_at": int(self.t.timestamp()),
                "duration_ms": int((self.t - started).total_seconds() * 1000),
                "time_to_first_token_ms": rng.randint(800, 6000),
            }
        )

    def finish(self) -> bytes:
        return b"\n".join(self.lines) + b"\n"

    # -------------------------------------------------------------- tools

    def _call_id(self) -> str:
        return "call_" + "".join(self.rng.choices(_ID_CHARS, k=24))

    def _run(self, cmd: str, out: str, code: int, st: Step) -> None:
        """A shell command (polled with ``write_stdin`` when it outlives the yield time)."""
        rng, cid = self.rng, self._call_id()
        self._tick(0.5, 3)
        wall = rng.uniform(1, 25) if cmd.startswith(_SLOW) else rng.uniform(0.02, 0.9)
        if self.shell == "shell_command":
            args = {"command": cmd, "workdir": self.cwd, "timeout_ms": 120000}
            self._item(
                {
                    "type": "function_call",
                    "name": "shell_command",
                    "arguments": orjson.dumps(args).decode(),
                    "call_id": cid,
                }
            )
            self._tokens()
            self._tick(0.1, wall)
            self._item(
                {
                    "type": "function_call_output",
                    "call_id": cid,
                    "output": f"Exit code: {code}\nWall time: {wall:.1f} seconds\nOutput:\n{out}",
                }
            )
            return 0
        args = {"cmd": cmd, "workdir": self.cwd, "yield_time_ms": 10000, "max_output_tokens": 12000}
        self._item(
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": orjson.dumps(args).decode(),
                "call_id": cid,
            }
        )
        self._tokens()
        pid = rng.randint(1000, 99999)
        head = f"Chunk ID: {F.hexid(rng, 6)}\nWall time: {min(wall, 10):.4f} seconds\n"
        if wall > 10:  # still running after the yield time: polled with write_stdin
            self._item(
                {
                    "type": "function_call_output",
                    "call_id": cid,
                    "output": head
                    + f"Process running with session ID {pid}\nOriginal token count: 0\nOutput:\n",
                }
            )
            cid2 = self._call_id()
            self._item(
                {
                    "type": "function_call",
                    "name": "write_stdin",
                    "arguments": orjson.dumps(
                        {"session_id": pid, "chars": "", "yield_time_ms": 30000}
                    ).decode(),
                    "call_id": cid2,
                }
            )
            self._tick(wall - 10, wall - 9)
            self._item(
                {
                    "type": "function_call_output",
                    "call_id": cid2,
                    "output": f"Chunk ID: {F.hexid(rng, 6)}\nWall time: {wall - 10:.4f} "
                    f"seconds\nProcess exited with code {code}\nOriginal token "
                    f"count: {len(out) // 4}\nOutput:\n{out}",
                }
            )
        else:
            self._tick(0.05, wall)
            self._item(
                {
                    "type": "function_call_output",
                    "call_id": cid,
                    "output": head
                    + f"Process exited with code {code}\nOriginal token count: {len(out) // 4}"
                    f"\nOutput:\n{out}",
                }
            )
        self._event(
            {
                "type": "exec_command_end",
                "call_id": cid,
                "process_id": str(pid),
                "turn_id": self.turn_id,
                "command": ["/bin/bash", "-lc", cmd],
                "cwd": self.cwd,
                "parsed_cmd": [_parsed(cmd, st)],
                "source": "unified_exec_startup",
                "stdout": "",
                "stderr": "",
                "aggregated_output": out,
                "exit_code": code,
                "duration": {"secs": int(wall), "nanos": int(wall % 1 * 1e9)},
                "formatted_output": "",
                "status": "failed" if code else "completed",
            }
        )

    def _patch(self, st: Step) -> bool:
        cid, rel = self._call_id(), st.arg
        self._tick(1, 6)
        if st.tool == "write":
            body = "\n".join("+" + x for x in st.new.rstrip("\n").split("\n"))
            patch, mark = f"*** Begin Patch\n*** Add File: {rel}\n{body}\n*** End Patch\n", "A"
        else:
            old = "\n".join("-" + x for x in st.old.rstrip("\n").split("\n"))
            new = "\n".join("+" + x for x in st.new.rstrip("\n").split("\n"))
            patch = f"*** Begin Patch\n*** Update File: {rel}\n@@\n{old}\n{new}\n*** End Patch\n"
            mark = "M"
        self._item(
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": cid,
                "name": "apply_patch",
                "input": patch,
            }
        )
        if st.rejected:  # the user stopped the turn instead of approving the patch
            self._tick(2, 20)
            self._event({"type": "turn_aborted", "reason": "interrupted", "turn_id": self.turn_id})
            self._message(
                "user",
                "<turn_aborted>\nThe user interrupted the previous turn on "
                "purpose. Any running unified exec processes were terminated."
                "\n</turn_aborted>",
            )
            return False
        done = f"Success. Updated the following files:\n{mark} {rel}\n"
        self._item(
            {
                "type": "custom_tool_call_output",
                "call_id": cid,
                "output": orjson.dumps(
                    {"output": done, "metadata": {"exit_code": 0, "duration_seconds": 0.0}}
                ).decode(),
            }
        )
        self._event(
            {
                "type": "patch_apply_end",
                "call_id": cid,
                "turn_id": self.turn_id,
                "stdout": done,
                "stderr": "",
                "success": True,
                "changes": {f"{self.cwd}/{rel}": {"type": "add" if mark == "A" else "update"}},
            }
        )
        return True


def _usage(tokens_in: int, tokens_out: int) -> dict[str, int]:
    return {
        "input_tokens": tokens_in,
        "cached_input_tokens": int(tokens_in * 0.8),
        "output_tokens": tokens_out,
        "reasoning_output_tokens": tokens_out // 3,
        "total_tokens": tokens_in + tokens_out,
    }


def _command(st: Step) -> str:
    """The shell command a Codex agent runs for a plan step."""
    if st.tool == "read":
        return f"sed -n '1,200p' {st.arg}"
    if st.tool == "grep":
        return f"rg -n '{st.arg}' ."
    if st.tool == "glob":
        return f"rg --files -g '{st.arg}'"
    if st.tool == "skill":  # no Skill tool in Codex: the agent reads the SKILL.md itself
        return f"sed -n '1,200p' {codex_skill_path(st.arg)}"
    return st.arg


def _parsed(cmd: str, st: Step) -> dict[str, Any]:
    if st.tool in ("read", "skill"):
        path = cmd.rsplit(" ", 1)[-1]
        return {"type": "read", "cmd": cmd, "name": path.rsplit("/", 1)[-1], "path": path}
    if st.tool == "grep":
        return {"type": "search", "cmd": cmd, "query": st.arg, "path": "."}
    if st.tool == "glob":
        return {"type": "list_files", "cmd": cmd, "path": None}
    return {"type": "unknown", "cmd": cmd}
