"""Codex rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): lines → events → session.

Handles the envelope format (``{timestamp,type,payload}``, Sep 2025 →), the legacy
pre-envelope format (bare header line, ``record_type`` markers, bare response items) and
the TypeScript-era single JSON object (``{"session":…,"items":[…]}``). One rollout file is
one session; its id is fixed by the file's first line (``session_meta`` or legacy header)
or else by the uuid in the file name, so every piece of a file lands in the same session.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from session_ingest.model import (
    ARGS_CHARS,
    CONTINUATION,
    EXCERPT_CHARS,
    HUMAN,
    SUBAGENT,
    Session,
    ToolCall,
    Turn,
    iso_time,
)
from session_ingest.records import line_id
from session_ingest.redact import redact_clip, redact_short
from session_ingest.shapes import codex_problem
from session_ingest.source import Source

SOURCE_NAME = "codex"

RESPONSE_TYPES = frozenset(
    {"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
     "custom_tool_call_output", "local_shell_call", "web_search_call", "tool_search_call",
     "tool_search_output", "image_generation_call", "ghost_snapshot", "compaction",
     "compaction_summary", "agent_message"}
)  # fmt: skip
# Persisted events we read nothing from (not "unknown": we know them and do not need them).
IGNORED_EVENTS = frozenset(
    {"agent_reasoning", "agent_reasoning_raw_content", "agent_message", "entered_review_mode",
     "exited_review_mode", "undo_completed", "thread_name_updated", "thread_rolled_back",
     "image_generation_end", "item_completed", "mcp_tool_call_end", "web_search_end",
     "view_image_tool_call", "guardian_assessment", "context_compacted", "turn_started",
     "turn_complete", "collab_agent_spawn_end", "collab_waiting_end", "collab_close_end",
     "collab_agent_interaction_end", "dynamic_tool_call_request", "dynamic_tool_call_response",
     "thread_settings_applied", "thread_goal_updated", "sub_agent_activity", "stream_error"}
)  # fmt: skip
_DROP_RE = re.compile(
    rb'"payload":\{"type":"(?:(?:reasoning|agent_reasoning|agent_message|ghost_snapshot)"'
    rb'|token_count","info":null)'
)
_HEAD = 200
_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", re.I)
_EXIT = re.compile(r"^Exit code: (-?\d+)")
_SHA = re.compile(r"^[0-9a-f]{7,64}$")
_PROC_EXIT = re.compile(r"Process exited with code (-?\d+)")
HARNESS_MARKERS = ("<", "# AGENTS.md instructions")
# The message Codex injects when the user invokes a skill with ``$name`` (not human intent,
# but the turn's skill use): ``<skill>\n<name>N</name>\n<path>…/SKILL.md</path>\n…``
_SKILL_NAME = re.compile(r"\A\s*<skill>\s*<name>\s*([^<\n]{1,200}?)\s*</name>")


def skip_bytes(line: bytes | memoryview) -> bool:
    """True when the raw line is a record kind we drop: saves parsing it at all."""
    return _DROP_RE.search(line, 0, _HEAD) is not None or line[:14] == b'{"record_type"'


def group_from_first(obj: Any, path: str) -> str:
    """A rollout's session id: from its first record, else the file name, else the path."""
    if isinstance(obj, dict):
        payload = obj.get("payload")
        if obj.get("type") == "session_meta" and isinstance(payload, dict) and payload.get("id"):
            return str(payload["id"])
        if "payload" not in obj and "type" not in obj and obj.get("id"):
            return str(obj["id"])  # legacy bare header
        session = obj.get("session")
        if isinstance(session, dict) and session.get("id"):
            return str(session["id"])  # TypeScript-era JSON
    return group_from_path(path)


def group_from_path(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    m = _UUID.search(name)
    if m:
        return m.group(1).lower()
    return "codex-" + hashlib.sha1(path.encode()).hexdigest()[:16]


def _texts(content: Any) -> tuple[str, int]:
    if isinstance(content, str):
        return content, 0
    if isinstance(content, dict):  # one content item, not in a list (0.146 outputs)
        content = [content]
    parts, images = [], 0
    if isinstance(content, list):
        for item in content:
            if not isinstance(item, dict):
                continue
            if item.get("type") in ("input_image", "image"):
                images += 1
            elif isinstance(item.get("text"), str):
                parts.append(item["text"])
    return "\n".join(parts), images


def _args(name: str, raw: Any) -> str:
    args = raw
    if isinstance(raw, str):
        if raw[:1] != "{":
            return raw[: ARGS_CHARS * 2]
        try:
            args = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw[: ARGS_CHARS * 2]
    if isinstance(args, dict):
        for key in ("cmd", "command", "path", "query", "chars", "session_id"):
            value = args.get(key)
            if isinstance(value, list):
                value = " ".join(str(v) for v in value)
            if value not in (None, ""):
                return f"{key}={value}" if key in ("chars", "session_id") else str(value)
        return "{" + ", ".join(sorted(str(k) for k in args)) + "}"
    return str(args)[: ARGS_CHARS * 2]


def parse_output(out: Any) -> tuple[str, int | None]:
    """Tool output text and exit code, from any of the three textual conventions."""
    text, images = _texts(out)
    if images:
        text = f"{text}\n[{images} image(s)]".strip()
    code = None
    head = text[:1200].lstrip()
    head = head[:600] if len(head) >= 600 or len(text) <= 1200 else text.lstrip()[:600]
    if head.startswith("{"):
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and "output" in obj:
            meta = obj.get("metadata")
            if isinstance(meta, dict) and isinstance(meta.get("exit_code"), int):
                code = meta["exit_code"]
            text = str(obj.get("output") or "")
            return text, code
    if head.startswith("Exit code: "):
        m = _EXIT.match(head)
        code = int(m.group(1)) if m else None
    else:
        at = head.find("Process exited with code ")
        if at >= 0:
            m = _PROC_EXIT.match(head, at)
            code = int(m.group(1)) if m else None
    return text, code


def _sha(value: Any) -> str | None:
    """A git commit id (hex), or None: nothing else is kept from that field."""
    return value if isinstance(value, str) and _SHA.match(value) else None


def _red(value: Any) -> Any:
    return redact_short(value)


def _human(text: str, images: int, mc: int) -> dict[str, Any] | None:
    text = text.strip()
    if not text and not images:
        return None
    if text.startswith(HARNESS_MARKERS):
        return None
    if images:
        text = f"{text}\n[{images} image(s)]".strip()
    return {"t": redact_clip(text, mc)}


@dataclass(frozen=True)
class FileCtx:
    path: str
    max_chars: int


def record_event(
    obj: dict[str, Any], line: Any, ctx: FileCtx, group: str | None
) -> tuple[str, int, dict[str, Any] | None]:
    """(group, record id, event): the rollout's session (``group`` once its first good
    record decided it); a record is keyed by a digest of its line."""
    grp = group or group_from_first(obj, ctx.path)
    data = event(obj, ctx.max_chars)
    if data is None:
        return grp, 0, None
    return grp, line_id(b"x:", grp, line), data


def event(obj: dict[str, Any], mc: int) -> dict[str, Any] | None:
    """One rollout line (any era) → event data, or None for kinds we drop."""
    ts = obj.get("timestamp")
    payload = obj.get("payload")
    kind = obj.get("type")
    if "payload" in obj:
        if not isinstance(payload, dict):
            payload = {}
    elif kind in RESPONSE_TYPES:  # legacy bare response item
        payload, kind, ts = obj, "response_item", None
    elif "record_type" in obj:
        return None
    elif kind is None and obj.get("id"):  # legacy bare header
        payload, kind = obj, "session_meta"
    data = _dispatch(str(kind), payload or {}, mc)
    ts = iso_time(ts)
    if data is not None and ts:
        data["ts"] = ts
    return data


def _dispatch(kind: str, p: dict[str, Any], mc: int) -> dict[str, Any] | None:
    pt = p.get("type")
    if kind == "session_meta":
        src = p.get("source")
        parent = None
        if isinstance(src, dict):
            sub = src.get("subagent")
            spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
            if isinstance(spawn, dict):
                parent = spawn.get("parent_thread_id")
            src = "subagent" if sub is not None else "other"
        git = raw if isinstance(raw := p.get("git"), dict) else {}
        d = {"k": "meta", "id": str(p.get("id") or ""), "cwd": _red(p.get("cwd")),
             "orig": _red(p.get("originator")), "src": _red(src), "parent": parent,
             "v": _red(p.get("cli_version")), "br": _red(git.get("branch")),
             "cm": _sha(git.get("commit_hash")), "mts": iso_time(p.get("timestamp"))}  # fmt: skip
        return {k: v for k, v in d.items() if v is not None}
    if kind == "turn_context":
        d = {"k": "ctx", "m": _red(p.get("model")), "cwd": _red(p.get("cwd"))}
        return {k: v for k, v in d.items() if v is not None}
    if kind == "compacted":
        return {"k": "cmp"}
    if kind == "response_item":
        return _response(pt, p, mc)
    if kind == "event_msg":
        return _event_msg(pt, p, mc)
    return {"k": "unk", "type": _red(str(kind)[:60])}


def _response(pt: Any, p: dict[str, Any], mc: int) -> dict[str, Any] | None:
    if pt == "message":
        role = p.get("role")
        text, images = _texts(p.get("content"))
        if role == "assistant":
            text = text.strip()
            return {"k": "a", "t": redact_clip(text, mc)} if text else None
        if role == "user":
            skill = _SKILL_NAME.match(text)
            if skill:
                return {"k": "skill", "n": _red(skill.group(1))}
            d = _human(text, images, mc)
            return {"k": "ui", **d} if d else None
        return None  # developer/system: harness instructions
    if pt in ("function_call", "custom_tool_call", "local_shell_call"):
        name = _red(str(p.get("name") or ("shell" if pt == "local_shell_call" else "?")))
        raw = p.get("arguments") if pt == "function_call" else p.get("input")
        if pt == "local_shell_call":
            raw = (
                (p.get("action") or {}).get("command") if isinstance(p.get("action"), dict) else ""
            )
            raw = {"command": raw}
        args = redact_clip(_args(name, raw), ARGS_CHARS)
        return {"k": "call", "id": str(p.get("call_id") or p.get("id") or ""), "n": name, "a": args}
    if pt in ("function_call_output", "custom_tool_call_output"):
        text, code = parse_output(p.get("output"))
        return {"k": "out", "id": str(p.get("call_id") or ""), "c": code,
                "x": redact_clip(text, EXCERPT_CHARS)}  # fmt: skip
    if pt in ("web_search_call", "tool_search_call", "image_generation_call"):
        return {"k": "call", "id": str(p.get("id") or ""), "n": str(pt), "a": "", "done": 1}
    if pt in RESPONSE_TYPES:
        return None
    return {"k": "unk", "type": _red(f"response_item/{str(pt)[:50]}")}


def _event_msg(pt: Any, p: dict[str, Any], mc: int) -> dict[str, Any] | None:
    if pt == "user_message":
        images = len(p.get("images") or []) + len(p.get("local_images") or [])
        d = _human(str(p.get("message") or ""), images, mc)
        return {"k": "h", **d} if d else None
    if pt == "token_count":
        info = p.get("info")
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if not isinstance(total, dict):
            return None
        return {"k": "tok", "in": total.get("input_tokens") or 0,
                "out": (total.get("output_tokens") or 0)}  # fmt: skip
    if pt in ("task_started", "turn_started"):
        return {"k": "tstart"}
    if pt in ("task_complete", "turn_complete"):
        return {"k": "tdone"}
    if pt == "turn_aborted":
        return {"k": "abort", "r": _red(str(p.get("reason") or ""))}
    if pt == "exec_command_end":
        code = p.get("exit_code")
        return {"k": "xend", "id": str(p.get("call_id") or ""),
                "c": code if isinstance(code, int) else None}  # fmt: skip
    if pt == "patch_apply_end":
        return {"k": "pend", "id": str(p.get("call_id") or ""), "ok": bool(p.get("success"))}
    if pt == "error":
        return {"k": "err", "t": redact_clip(str(p.get("message") or "error"), 300)}
    if pt in IGNORED_EVENTS:
        return None
    return {"k": "unk", "type": _red(f"event_msg/{str(pt)[:50]}")}


def whole_records(obj: dict[str, Any], path: str) -> tuple[str, Iterator[dict[str, Any]]]:
    """TypeScript-era ``{"session":…,"items":[…]}``: its session and envelope-like records."""
    return group_from_first(obj, path), ts_json_records(obj)


def ts_json_records(obj: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """TypeScript-era ``{"session":…,"items":[…]}``: yield envelope-like records."""
    session = raw if isinstance(raw := obj.get("session"), dict) else {}
    yield {"type": "session_meta", "payload": {**session, "originator": "codex_ts"},
           "timestamp": session.get("timestamp")}  # fmt: skip
    for item in obj.get("items") or []:
        if isinstance(item, dict):
            yield {"type": "response_item", "payload": item}


# ---------------------------------------------------------------------------- build


def build(group: str, events: Iterable[dict[str, Any]]) -> list[Session]:
    """Events of one rollout (file order) → one session."""
    events = list(events)
    s = Session(id=group, source=SOURCE_NAME, grp=group)
    has_user_events = any(d.get("k") == "h" for d in events)
    has_task_events = any(d.get("k") in ("tstart", "tdone") for d in events)
    human_kind = "h" if has_user_events else "ui"
    turn: Turn | None = None
    calls: dict[str, ToolCall] = {}
    meta_seen = False
    tokens = (0, 0)
    turn_tokens_start = (0, 0)
    waiting_skills: list[str] = []  # invoked just before the request they belong to

    def use_skill(t: Turn, name: str) -> None:
        if name and name not in t.skills:
            t.skills.append(name)

    def close(t: Turn | None) -> None:
        if t is None:
            return
        t.input_tokens = max(0, tokens[0] - turn_tokens_start[0])
        t.output_tokens = max(0, tokens[1] - turn_tokens_start[1])
        if not has_task_events:
            pending = any(not c.answered for c in t.tool_calls)
            t.finished = bool(t.assistant_parts and not pending and not t.interrupted)

    def current(ts: str | None) -> Turn:
        nonlocal turn
        if turn is None:
            turn = Turn(idx=len(s.turns), kind=CONTINUATION)
            s.turns.append(turn)
        turn.touch(ts)
        return turn

    for d in events:
        k, ts = d.get("k"), d.get("ts")
        s.touch(ts)
        if k == "meta":
            if meta_seen and d.get("id") and d["id"] != group:
                continue  # another thread's header inside this file: tolerate, ignore
            if not meta_seen:
                meta_seen = True
                s.project = d.get("cwd")
                s.branch = d.get("br")
                s.git_commit = d.get("cm")
                s.cli_version = d.get("v")
                s.touch(d.get("mts"))
                if d.get("parent"):
                    s.parent_id = str(d["parent"])
                if d.get("src") == "subagent":
                    s.kind = "subagent"
                elif d.get("orig") == "codex_exec" or d.get("src") == "exec":
                    s.kind = "headless"
        elif k == "ctx":
            if d.get("m"):
                s.model = d["m"]
            if not s.project and d.get("cwd"):
                s.project = d["cwd"]
        elif k == human_kind:
            close(turn)
            turn_tokens_start = tokens
            turn = Turn(idx=len(s.turns), kind=HUMAN, user_text=d.get("t", ""))
            turn.touch(ts)
            s.turns.append(turn)
            for name in waiting_skills:
                use_skill(turn, name)
            waiting_skills.clear()
            if not s.title:
                s.title = turn.user_text.split("\n", 1)[0][:120]
        elif k == "skill":
            # ``$name`` in the request: the <skill> message comes with it, before any work
            if (
                turn is not None
                and turn.kind == HUMAN
                and not (turn.assistant_parts or turn.tool_calls)
            ):
                use_skill(turn, d.get("n", ""))
            else:
                waiting_skills.append(d.get("n", ""))
        elif k == "a":
            t = current(ts)
            t.assistant_parts.append(d.get("t", ""))
        elif k == "call":
            t = current(ts)
            call = ToolCall(id=d.get("id", ""), name=d.get("n", "?"), args_summary=d.get("a", ""))
            call.answered = bool(d.get("done"))
            t.tool_calls.append(call)
            if call.id:
                calls[call.id] = call
        elif k in ("out", "xend", "pend"):
            done = calls.get(d.get("id", ""))
            if done is None:
                continue
            if turn is not None:
                turn.touch(ts)
            if k == "out":
                done.answered = True
                done.output_excerpt = d.get("x", "")
                if done.exit_code is None:
                    done.exit_code = d.get("c")
            elif k == "xend":
                if d.get("c") is not None:
                    done.exit_code = d["c"]  # authoritative: the command's real exit status
            else:
                done.is_error = done.is_error or not d.get("ok")
            if done.exit_code not in (None, 0):
                done.is_error = True
        elif k == "tdone":
            if turn is not None:
                turn.finished = True
                turn.touch(ts)
        elif k == "abort":
            if turn is not None and d.get("r") in ("interrupted", ""):
                turn.interrupted = f"turn_aborted: {d.get('r') or 'interrupted'}"
                turn.finished = False
        elif k == "tok":
            tokens = (max(tokens[0], d.get("in", 0)), max(tokens[1], d.get("out", 0)))
        elif k == "err":
            if turn is not None:
                turn.api_error = turn.api_error or d.get("t", "")
        elif k == "unk":
            s.unknown_records += 1
    close(turn)
    if s.kind == "subagent":  # its requests come from the parent thread's model, not a human
        for t in s.turns:
            if t.kind == HUMAN:
                t.kind, t.user_text = SUBAGENT, ""
    s.input_tokens, s.output_tokens = tokens  # cumulative totals: the last is the session's
    if not (meta_seen or s.turns or s.unknown_records):
        return []
    return [s]


def _is_log(name: str) -> bool:
    return name.endswith(".jsonl") or (name.startswith("rollout-") and name.endswith(".json"))


SOURCE = Source(
    name=SOURCE_NAME,
    log_dirs=lambda root: [root / "sessions", root / "archived_sessions"],
    is_log=_is_log,
    context=FileCtx,
    skip_line=skip_bytes,
    problem=codex_problem,
    event=record_event,
    build=build,
    file_is_session=True,
    whole_file=lambda path: path.endswith(".json"),
    whole_records=whole_records,
)
