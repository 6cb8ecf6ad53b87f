"""Claude Code 2.1 and Codex 0.13x records for the tuning session corpus (``tuning``).

A session is a list of turns, each a request as the user typed it, the tool calls the agent
made for it (shell commands, file reads, edits and writes, searches) and its answer. The
writers lay them out as the tools do: Claude Code writes one record per content block, tool
results come back as ``user`` records with a ``toolUseResult``, a skill is loaded by the
``Skill`` tool (model-invoked) or by ``/name`` (user-invoked, a ``<command-name>`` record),
both followed by the skill body as an ``isMeta`` record; Codex writes ``session_meta``, then
per turn ``task_started``, ``turn_context``, the user's message, a ``<skill>`` message when
the user wrote ``$name``, ``exec_command`` calls with their outputs and ``exec_command_end``,
``apply_patch`` calls with ``patch_apply_end``, the answer and ``task_complete``.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

CLAUDE_VERSION = "2.1.90"
CODEX_VERSION = "0.131.0"
HOME = "/home/dev"


@dataclass
class Call:
    kind: str  # bash | read | edit | write | grep | glob
    arg: str  # the command, the file path (relative to the project), or the pattern


@dataclass
class Turn:
    text: str  # the request as the user meant it (without a skill's /name or $name)
    calls: list[Call]
    answer: str
    skill: str | None = None  # a skill loaded for this turn
    via: str = "tool"  # tool (the agent called Skill) | command (/name) | dollar ($name)

    @property
    def logged(self) -> str:
        """The request as the log holds it, as ingest stores it."""
        if self.skill and self.via == "command":
            return f"/{self.skill} {self.text}".strip()
        if self.skill and self.via == "dollar":
            return f"${self.skill} {self.text}"
        return self.text


@dataclass
class Session:
    id: str
    source: str  # claude | codex
    cwd: str
    branch: str
    start: datetime
    turns: list[Turn] = field(default_factory=list)


def new_id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _output(call: Call, rng: random.Random) -> str:
    """A short, plausible tool output."""
    if call.kind == "bash":
        head = call.arg.split()[0]
        return {"git": "M  src/app.py\n", "pytest": f"{rng.randint(3, 90)} passed in 1.2s\n",
                "ls": "README.md\nsrc\ntests\n"}.get(head, "ok\n")  # fmt: skip
    if call.kind == "read":
        return "     1→# module\n     2→import os\n"
    if call.kind in ("grep", "glob"):
        return "src/app.py\n"
    return "The file has been updated."


def _body(skill: str) -> str:
    return f"# {skill}\n\nFollow the team's conventions for this task.\n"


class _Claude:
    """Appends the records of one Claude Code session, chained by ``parentUuid``."""

    def __init__(self, s: Session, rng: random.Random) -> None:
        self.s, self.rng = s, rng
        self.t = s.start
        self.parent: str | None = None
        self.lines: list[bytes] = []

    def _tick(self, lo: float = 0.5, hi: float = 6.0) -> str:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return _iso(self.t)

    def _add(self, rec: dict[str, Any]) -> str:
        uid = new_id(self.rng)
        self.lines.append(
            orjson.dumps(
                {"parentUuid": self.parent, "isSidechain": False, "userType": "external",
                 "cwd": self.s.cwd, "sessionId": self.s.id, "version": CLAUDE_VERSION,
                 "gitBranch": self.s.branch, **rec, "uuid": uid, "timestamp": self._tick()}
            )
        )  # fmt: skip
        self.parent = uid
        return uid

    def _assistant(self, block: dict[str, Any]) -> str:
        msg = {"model": "claude-sonnet-4-5", "id": f"msg_{self.rng.getrandbits(64):016x}",
               "type": "message", "role": "assistant", "content": [block],
               "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 4, "cache_read_input_tokens": 18000,
                         "output_tokens": self.rng.randint(20, 400)}}  # fmt: skip
        return self._add({"type": "assistant", "message": msg,
                          "requestId": f"req_{self.rng.getrandbits(64):016x}"})  # fmt: skip

    def _tool(self, name: str, args: dict[str, Any], out: str, result: Any) -> None:
        tid = f"toolu_{self.rng.getrandbits(96):024x}"
        auid = self._assistant({"type": "tool_use", "id": tid, "name": name, "input": args})
        content = [{"tool_use_id": tid, "type": "tool_result", "content": out, "is_error": False}]
        self._add({"type": "user", "message": {"role": "user", "content": content},
                   "toolUseResult": result, "sourceToolAssistantUUID": auid})  # fmt: skip

    def _skill_body(self, skill: str, tool_id: str | None) -> None:
        text = f"Base directory for this skill: {HOME}/.claude/skills/{skill}\n\n{_body(skill)}"
        content = [{"type": "text", "text": text}]
        rec: dict[str, Any] = {
            "type": "user",
            "isMeta": True,
            "message": {"role": "user", "content": content},
        }
        if tool_id:
            rec["sourceToolUseID"] = tool_id
        self._add(rec)

    def turn(self, turn: Turn) -> None:
        self.t += timedelta(seconds=self.rng.uniform(20, 600))
        if turn.skill and turn.via == "command":
            text = (f"<command-message>{turn.skill} is running…</command-message>\n"
                    f"<command-name>/{turn.skill}</command-name>\n"
                    f"<command-args>{turn.text}</command-args>")  # fmt: skip
            self._add({"type": "user", "message": {"role": "user", "content": text}})
            self._skill_body(turn.skill, None)
        else:
            self._add({"type": "user", "message": {"role": "user", "content": turn.text},
                       "permissionMode": "default"})  # fmt: skip
        if turn.skill and turn.via == "tool":
            tid = f"toolu_{self.rng.getrandbits(96):024x}"
            self._tool_skill(turn.skill, tid)
        if turn.calls and self.rng.random() < 0.5:
            self._assistant({"type": "text", "text": "Let me look at the project first."})
        for call in turn.calls:
            self._call(call)
        self._assistant({"type": "text", "text": turn.answer})
        self._add({"type": "system", "subtype": "turn_duration",
                   "durationMs": self.rng.randint(2000, 90000), "isMeta": False})  # fmt: skip

    def _tool_skill(self, skill: str, tid: str) -> None:
        auid = self._assistant({"type": "tool_use", "id": tid, "name": "Skill",
                                "input": {"skill": skill}})  # fmt: skip
        content = [{"tool_use_id": tid, "type": "tool_result",
                    "content": f"Launching skill: {skill}"}]  # fmt: skip
        self._add({"type": "user", "message": {"role": "user", "content": content},
                   "toolUseResult": {"success": True, "commandName": skill},
                   "sourceToolAssistantUUID": auid})  # fmt: skip
        self._skill_body(skill, tid)

    def _call(self, call: Call) -> None:
        out = _output(call, self.rng)
        path = f"{self.s.cwd}/{call.arg}"
        if call.kind == "bash":
            self._tool("Bash", {"command": call.arg, "description": "Run " + call.arg.split()[0]},
                       out, {"stdout": out, "stderr": "", "interrupted": False,
                             "isImage": False})  # fmt: skip
        elif call.kind == "read":
            self._tool("Read", {"file_path": path}, out,
                       {"type": "text", "file": {"filePath": path, "content": out,
                                                 "numLines": 2, "startLine": 1,
                                                 "totalLines": 2}})  # fmt: skip
        elif call.kind == "edit":
            self._tool("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, out,
                       {"filePath": path, "oldString": "a", "newString": "b",
                        "userModified": False, "replaceAll": False})  # fmt: skip
        elif call.kind == "write":
            self._tool(
                "Write",
                {"file_path": path, "content": "# new\n"},
                out,
                {"type": "create", "filePath": path, "content": "# new\n"},
            )
        elif call.kind == "grep":
            self._tool("Grep", {"pattern": call.arg, "path": self.s.cwd}, out,
                       {"mode": "files_with_matches", "numFiles": 1,
                        "filenames": ["src/app.py"]})  # fmt: skip
        elif call.kind == "glob":
            self._tool("Glob", {"pattern": call.arg}, out,
                       {"filenames": ["src/app.py"], "numFiles": 1, "durationMs": 3,
                        "truncated": False})  # fmt: skip


def write_claude(root: Path, s: Session, rng: random.Random) -> Path:
    """``root/.claude/projects/<cwd with - for every other character>/<id>.jsonl``."""
    w = _Claude(s, rng)
    snap = {"type": "file-history-snapshot", "messageId": new_id(rng),
            "snapshot": {"messageId": new_id(rng), "trackedFileBackups": {},
                         "timestamp": _iso(s.start)}, "isSnapshotUpdate": False}  # fmt: skip
    w.lines.append(orjson.dumps(snap))
    for turn in s.turns:
        w.turn(turn)
    folder = "".join(c if c.isalnum() else "-" for c in s.cwd)
    path = root / ".claude" / "projects" / folder / f"{s.id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(w.lines) + b"\n")
    return path


def _codex_shell(call: Call) -> str | None:
    """How Codex does a read or a search: with the shell."""
    return {
        "bash": call.arg,
        "read": f"sed -n '1,200p' {call.arg}",
        "grep": f"rg -n '{call.arg}'",
        "glob": f"rg --files -g '{call.arg}'",
    }.get(call.kind)


def write_codex(root: Path, s: Session, rng: random.Random) -> Path:
    """``root/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl``."""
    t = s.start
    lines: list[bytes] = []

    def add(kind: str, payload: dict[str, Any], lo: float = 0.2, hi: float = 4.0) -> None:
        nonlocal t
        t += timedelta(seconds=rng.uniform(lo, hi))
        lines.append(orjson.dumps({"timestamp": _iso(t), "type": kind, "payload": payload}))

    add("session_meta", {"id": s.id, "timestamp": _iso(t), "cwd": s.cwd,
                         "originator": "codex_cli_rs", "cli_version": CODEX_VERSION,
                         "source": "cli", "model_provider": "openai",
                         "base_instructions": {"text": "You are Codex, a coding agent."},
                         "git": {"commit_hash": f"{rng.getrandbits(160):040x}",
                                 "branch": s.branch}})  # fmt: skip
    for turn in s.turns:
        t += timedelta(seconds=rng.uniform(20, 600))
        tid = new_id(rng)
        add("event_msg", {"type": "task_started", "turn_id": tid, "model_context_window": 258400})
        add("turn_context", {"turn_id": tid, "cwd": s.cwd, "approval_policy": "on-request",
                             "sandbox_policy": {"type": "workspace-write"},
                             "model": "gpt-5.5", "summary": "auto"})  # fmt: skip
        text = turn.logged
        add("response_item", {"type": "message", "role": "user",
                              "content": [{"type": "input_text", "text": text}]})  # fmt: skip
        add("event_msg", {"type": "user_message", "message": text, "images": [],
                          "local_images": [], "text_elements": []})  # fmt: skip
        if turn.skill:
            body = (f"<skill>\n<name>{turn.skill}</name>\n"
                    f"<path>{HOME}/.agents/skills/{turn.skill}/SKILL.md</path>\n"
                    f"{_body(turn.skill)}</skill>")  # fmt: skip
            add("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": body}]})  # fmt: skip
        for call in turn.calls:
            cid = f"call_{rng.getrandbits(96):024x}"
            shell = _codex_shell(call)
            if shell is not None:
                args = orjson.dumps({"cmd": shell, "workdir": s.cwd, "yield_time_ms": 1000})
                add("response_item", {"type": "function_call", "name": "exec_command",
                                      "arguments": args.decode(), "call_id": cid})  # fmt: skip
                out = _output(call, rng)
                add("response_item", {"type": "function_call_output", "call_id": cid,
                                      "output": f"Chunk ID: {rng.getrandbits(24):06x}\n"
                                                "Wall time: 0.4 seconds\nProcess exited with"
                                                f" code 0\nOutput:\n{out}"})  # fmt: skip
                add("event_msg", {"type": "exec_command_end", "call_id": cid, "turn_id": tid,
                                  "command": ["/bin/bash", "-lc", shell], "cwd": s.cwd,
                                  "exit_code": 0, "stdout": out, "stderr": ""})  # fmt: skip
            else:
                verb = "Add" if call.kind == "write" else "Update"
                patch = f"*** Begin Patch\n*** {verb} File: {call.arg}\n@@\n-a\n+b\n*** End Patch"
                add("response_item", {"type": "custom_tool_call", "name": "apply_patch",
                                      "input": patch, "call_id": cid})  # fmt: skip
                out = {"output": f"Success. Updated:\nM {call.arg}\n", "metadata": {"exit_code": 0}}
                add("response_item", {"type": "custom_tool_call_output", "call_id": cid,
                                      "output": orjson.dumps(out).decode()})  # fmt: skip
                changes = {f"{s.cwd}/{call.arg}": {"type": "update"}}
                add("event_msg", {"type": "patch_apply_end", "call_id": cid, "turn_id": tid,
                                  "success": True, "changes": changes})  # fmt: skip
        answer = [{"type": "output_text", "text": turn.answer}]
        add("response_item", {"type": "message", "role": "assistant", "content": answer})
        add("event_msg", {"type": "agent_message", "message": turn.answer})
        add("event_msg", {"type": "token_count", "info": None, "rate_limits": None})
        add("event_msg", {"type": "task_complete", "turn_id": tid,
                          "last_agent_message": turn.answer})  # fmt: skip
    stamp = s.start.strftime("%Y-%m-%dT%H-%M-%S")
    folder = root / ".codex" / "sessions" / s.start.strftime("%Y/%m/%d")
    path = folder / f"rollout-{stamp}-{s.id}.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path
