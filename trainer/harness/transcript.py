"""What a harness rollout did, read from the CLI's own transcript.

Claude Code writes `~/.claude/projects/<dir>/<session>.jsonl`; Codex writes
`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` (formats: shared/docs/session_formats.md).
Both are read the same defensive way as ingest reads them: one JSON object per line, bad
lines skipped. The proof that the candidate skill reached the model is in there and only
there: Claude's hidden `isMeta` user message "Base directory for this skill: …" and
Codex's `<skill>` user message both carry the body verbatim.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trainer.backends.base import InfraError
from trainer.rollout import ToolCall

_EXIT_LINE = re.compile(r"^(?:Exit code|Process exited with code):? (-?\d+)", re.MULTILINE)
_RUNNING = re.compile(r"Process running with session ID (\d+)")
_WS = re.compile(r"\s+")
_SHELLS = ("bash", "sh", "zsh")


@dataclass
class Transcript:
    answer: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    skill_injected: bool = False
    input_tokens: int = 0  # prompt tokens, cached ones included
    cached_input_tokens: int = 0
    output_tokens: int = 0
    model_requests: int = 0
    model_answered: bool = False  # the model produced anything at all (text or a tool call)
    api_error: str = ""  # the endpoint failed: an infrastructure error, not the skill's
    output_capped: bool = False  # the answer ran past a request's output cap: the attempt failed
    records: int = 0
    bad_lines: int = 0


def own_file(root: Path, path: Path) -> Path:
    """`path`, once it is known to be a regular file under `root` reached through no
    symlink. The agent could write anything in its home, a symlink to the user's SSH key in
    place of its transcript included; what is read back must be what the CLI wrote there."""
    real = Path(os.path.realpath(path))
    try:
        rel = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        rel = None
    if rel is None or real != Path(os.path.realpath(root)) / rel:
        raise InfraError(f"the transcript {path} leads out of the scratch home")
    if not stat.S_ISREG(os.lstat(real).st_mode):
        raise InfraError(f"the transcript {path} is not a regular file")
    return real


def read_jsonl(path: Path, out: Transcript) -> Iterator[dict[str, Any]]:
    with open(path, "rb") as fh:
        for raw in fh:
            try:
                rec = json.loads(raw)
            except ValueError:
                out.bad_lines += 1
                continue
            if isinstance(rec, dict):
                out.records += 1
                yield rec


def carries_body(text: str, body: str) -> bool:
    """The skill body appears in `text` (whitespace-insensitive; an empty body never does)."""
    want = _WS.sub(" ", body).strip()
    return bool(want) and want in _WS.sub(" ", text)


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _text(content: Any) -> str:
    return "\n".join(str(b.get("text", "")) for b in _blocks(content) if b.get("type") == "text")


def _summary(name: str, args: dict[str, Any]) -> str:
    """The command of a shell tool; for other tools the path or pattern they worked on."""
    for key in ("command", "cmd"):
        value = args.get(key)
        if isinstance(value, list):
            words = [str(v) for v in value]
            if len(words) == 3 and Path(words[0]).name in _SHELLS and words[1] in ("-c", "-lc"):
                return words[2]  # ["bash", "-lc", "git status"]: the command is the script
            return " ".join(words)
        if isinstance(value, str):
            return value
    for key in ("file_path", "path", "pattern", "url"):
        if isinstance(args.get(key), str):
            return f"{name} {args[key]}"
    return name


def exit_from_text(text: str) -> int | None:
    match = _EXIT_LINE.search(text)
    return int(match.group(1)) if match else None


# -- Claude Code ---------------------------------------------------------------------------
def parse_claude(path: Path, body: str) -> Transcript:
    out = Transcript()
    calls: dict[str, int] = {}  # tool_use id -> index in out.tool_calls
    usage: dict[str, dict[str, Any]] = {}  # message id -> last usage (streaming splits)
    last_text = ""
    for rec in read_jsonl(path, out):
        kind, msg = rec.get("type"), rec.get("message")
        if not isinstance(msg, dict):
            continue
        if kind == "user":
            text = _text(msg.get("content")) if rec.get("isMeta") else ""
            if text.startswith("Base directory for this skill:") and carries_body(text, body):
                out.skill_injected = True
            for b in _blocks(msg.get("content")):
                if b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    i = calls[b["tool_use_id"]]
                    out.tool_calls[i] = _claude_result(out.tool_calls[i], b)
        elif kind == "assistant":
            if rec.get("isApiErrorMessage"):
                out.api_error = _text(msg.get("content"))[:300] or "API error"
                continue
            out.model_answered = True
            if isinstance(msg.get("usage"), dict) and msg.get("id"):
                usage[str(msg["id"])] = msg["usage"]
            text = _text(msg.get("content"))
            if text:
                last_text = text
            for b in _blocks(msg.get("content")):
                if b.get("type") == "tool_use" and b.get("id") not in calls:
                    args = b.get("input") if isinstance(b.get("input"), dict) else {}
                    calls[str(b.get("id"))] = len(out.tool_calls)
                    name = str(b.get("name", ""))
                    out.tool_calls.append(ToolCall(name, _summary(name, args), None))
    for u in usage.values():
        cached = int(u.get("cache_read_input_tokens") or 0)
        created = int(u.get("cache_creation_input_tokens") or 0)
        out.input_tokens += int(u.get("input_tokens") or 0) + cached + created
        out.cached_input_tokens += cached
        out.output_tokens += int(u.get("output_tokens") or 0)
    out.model_requests = len(usage)
    out.answer = last_text
    return out


def _claude_result(call: ToolCall, block: dict[str, Any]) -> ToolCall:
    text = _text(block.get("content"))
    if block.get("is_error"):
        status = exit_from_text(text)
        return ToolCall(call.name, call.command, status if status is not None else 1)
    return ToolCall(call.name, call.command, 0)


# -- Codex ---------------------------------------------------------------------------------
def parse_codex(path: Path, name: str, body: str) -> Transcript:
    out = Transcript()
    calls: dict[str, int] = {}  # call_id -> index
    sessions: dict[str, int] = {}  # unified-exec session id -> index of the call that runs it
    last_text = ""
    tag = f"<name>{name}</name>"
    for rec in read_jsonl(path, out):
        kind, p = rec.get("type"), rec.get("payload")
        if not isinstance(p, dict):
            continue
        pt = p.get("type")
        if kind == "response_item" and pt == "message":
            text = "\n".join(
                str(c.get("text", "")) for c in _blocks(p.get("content")) if "text" in c
            )
            if p.get("role") == "user" and text.startswith("<skill>") and tag in text:
                out.skill_injected = out.skill_injected or carries_body(text, body)
            elif p.get("role") == "assistant" and text:
                last_text = text
                out.model_answered = True
        elif kind == "response_item" and pt in ("function_call", "custom_tool_call"):
            out.model_answered = True
            tool = str(p.get("name", ""))
            args = _codex_args(p)
            if tool == "write_stdin":  # polls a running command; its exit lands there
                calls[str(p.get("call_id"))] = sessions.get(str(args.get("session_id")), -1)
                continue
            calls[str(p.get("call_id"))] = len(out.tool_calls)
            command = _summary(tool, args) if args else f"{tool} {str(p.get('input', ''))[:200]}"
            out.tool_calls.append(ToolCall(tool, command, None))
        elif kind == "response_item" and pt == "local_shell_call":
            out.model_answered = True
            action = p.get("action") if isinstance(p.get("action"), dict) else {}
            calls[str(p.get("call_id"))] = len(out.tool_calls)
            out.tool_calls.append(ToolCall("local_shell", _summary("local_shell", action), None))
        elif kind == "response_item" and pt in ("function_call_output", "custom_tool_call_output"):
            i = calls.get(str(p.get("call_id")), -1)
            if i < 0:
                continue
            status, running = _codex_exit(p.get("output"))
            if running:
                sessions[running] = i
            call = out.tool_calls[i]
            if status is not None or call.exit_status is None:
                out.tool_calls[i] = ToolCall(call.name, call.command, status)
        elif kind == "event_msg" and pt == "token_count" and isinstance(p.get("info"), dict):
            total = p["info"].get("total_token_usage") or {}
            out.input_tokens = int(total.get("input_tokens") or 0)
            out.cached_input_tokens = int(total.get("cached_input_tokens") or 0)
            out.output_tokens = int(total.get("output_tokens") or 0)
            out.model_requests += 1
        elif kind == "event_msg" and pt == "task_complete" and p.get("last_agent_message"):
            last_text = str(p["last_agent_message"])
        elif kind == "event_msg" and pt in ("error", "stream_error"):
            out.api_error = str(p.get("message", "error"))[:300]
    out.answer = last_text
    return out


def _codex_args(p: dict[str, Any]) -> dict[str, Any]:
    raw = p.get("arguments")
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
    return raw if isinstance(raw, dict) else {}


def _codex_exit(output: Any) -> tuple[int | None, str]:
    """(exit status, session id of a still-running command) from a tool output, in any of
    the three textual conventions Codex has used."""
    if isinstance(output, list):
        output = "\n".join(str(c.get("text", "")) for c in output if isinstance(c, dict))
    text = str(output or "")
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("metadata"), dict):
            code = data["metadata"].get("exit_code")
            return (int(code) if isinstance(code, int) else None), ""
    running = _RUNNING.search(text)
    if running and exit_from_text(text) is None:
        return None, running.group(1)
    status = exit_from_text(text)
    if status is None and text.startswith(("Success.", "Done!")):  # apply_patch's own reply
        return 0, ""
    return status, ""
