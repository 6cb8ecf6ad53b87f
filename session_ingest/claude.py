"""Claude Code transcripts (``~/.claude/projects/<dir>/*.jsonl``): line → event, events → sessions.

``event(obj, ctx)`` is context-free: it looks at one record and returns a small dict (or
``None`` for record kinds we drop), so a file read in pieces yields the same events as a
file read whole. ``build(group, events)`` replays a session's events in file order into
normalized sessions: the main session plus one session per subagent transcript (inline
1.0.x sidechains, 2.0.x ``agent-*.jsonl``, 2.1.x ``<sessionId>/subagents/agent-*.jsonl``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from session_ingest.model import (
    ARGS_CHARS,
    COMMAND,
    CONTINUATION,
    EXCERPT_CHARS,
    HUMAN,
    SUBAGENT,
    Session,
    ToolCall,
    Turn,
    iso_time,
    strip_reminders,
)
from session_ingest.records import hash64, line_id
from session_ingest.redact import redact_clip, redact_short
from session_ingest.shapes import claude_problem
from session_ingest.source import Source

SOURCE_NAME = "claude"

# Record kinds we read nothing from. Checked on raw bytes first (cheap), then on `type`.
DROP_TYPES = frozenset(
    {
        "progress", "file-history-snapshot", "queue-operation", "summary", "last-prompt",
        "attachment", "agent-name", "agent-setting", "permission-mode", "mode", "pr-link",
        "frame-link", "worktree-state", "bridge-session", "relocated", "started", "result",
        "atis-latch",
    }
)  # fmt: skip
_DROP_RE = re.compile(
    rb'"type":"(?:progress|file-history-snapshot|queue-operation|summary|last-prompt)"'
)
_HEAD = 640
_CACHE_BREAKDOWN = ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")

INTERRUPT_PREFIX = "[Request interrupted by user"
COMPACT_PREFIX = "This session is being continued from a previous conversation"
REJECT_MARKERS = ("The user doesn't want to proceed with this tool use", "tool use was rejected")
# User text that is harness output, not a request (section 1.9 of session_formats.md).
HARNESS_PREFIXES = (
    "<local-command-stdout", "<local-command-stderr", "<local-command-caveat", "Caveat: ",
    "<bash-stdout", "<bash-stderr", "<system-reminder>", "<task-notification>",
    "<agent-message>", "<user-prompt-submit-hook>", "Stop hook feedback:",
    "Base directory for this skill:",
)  # fmt: skip
_CMD_NAME = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_CMD_ARGS = re.compile(r"<command-args>\s*(.*?)\s*</command-args>", re.S)
_BASH_INPUT = re.compile(r"<bash-input>\s*(.*?)\s*</bash-input>", re.S)
_EXIT_CODE = re.compile(r"(?:Exit code|exit code|exited with code)[: ]+(-?\d+)")
_AGENT_FILE = re.compile(r"^agent-(.+)\.jsonl$")
_SESSION_NAME = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


@dataclass(frozen=True)
class FileCtx:
    """What a line's meaning may depend on besides the line: its file's name and place."""

    path: str
    agent_id: str | None  # set for agent-<id>.jsonl transcripts
    default_group: str | None  # session id from the file name, for id-less records
    max_chars: int


def file_ctx(path: str, max_chars: int) -> FileCtx:
    name = path.rsplit("/", 1)[-1]
    m = _AGENT_FILE.match(name)
    stem = name[:-6] if name.endswith(".jsonl") else name
    # Only a session-id-shaped file name names a session (not journal.jsonl & co).
    default = stem if not m and _SESSION_NAME.match(stem) else None
    return FileCtx(path, m.group(1) if m else None, default, max_chars)


def skip_bytes(line: bytes) -> bool:
    """True when the raw line is a record kind we drop: saves parsing it at all."""
    return _DROP_RE.search(line, 0, _HEAD) is not None


def _text_of(content: Any) -> tuple[str, int]:
    """Joined text of a content string/list, and the number of image blocks in it."""
    if isinstance(content, str):
        return content, 0
    parts: list[str] = []
    images = 0
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                parts.append(str(block.get("text") or ""))
            elif kind == "image":
                images += 1
            elif kind == "tool_result":
                continue
    return "\n".join(parts), images


def _args_summary(name: str, args: Any) -> str:
    if not isinstance(args, dict):
        return str(args)[:ARGS_CHARS]
    for key in ("command", "file_path", "path", "pattern", "url", "query", "skill",
                "description", "prompt", "notebook_path"):  # fmt: skip
        value = args.get(key)
        if isinstance(value, str) and value:
            extra = args.get("path") if key == "pattern" else None
            text = f"{value} in {extra}" if isinstance(extra, str) else value
            return text
    if name == "TodoWrite" and isinstance(args.get("todos"), list):
        return f"{len(args['todos'])} todos"
    keys = ", ".join(sorted(str(k) for k in args))
    return f"{{{keys}}}"


def _common(obj: dict[str, Any], data: dict[str, Any], ctx: FileCtx) -> None:
    ts = iso_time(obj.get("timestamp"))
    if ts:
        data["ts"] = ts
    for src, dst in (("cwd", "cwd"), ("gitBranch", "br"), ("version", "v"),
                     ("entrypoint", "ep")):  # fmt: skip
        value = obj.get(src)
        if value:
            data[dst] = redact_short(value)
    if ctx.agent_id or obj.get("isSidechain"):
        data["sc"] = ctx.agent_id or obj.get("agentId") or ""
        data["u"] = obj.get("uuid")
        data["pu"] = obj.get("parentUuid")


def record_event(
    obj: dict[str, Any], line: Any, ctx: FileCtx, _group: str | None
) -> tuple[str, int, dict[str, Any] | None]:
    """(group, record id, event): a record is keyed by its ``uuid`` within its session, one
    without a uuid by a digest of its line."""
    got = event(obj, ctx)
    if got is None:
        return "", 0, None
    key, grp, data = got
    return grp, hash64(b"c:", key.encode()) if key else line_id(b"c:", grp, line), data


def event(obj: dict[str, Any], ctx: FileCtx) -> tuple[str, str, dict[str, Any]] | None:
    """One record → (record key, group session id, event data), or None for dropped kinds."""
    kind = obj.get("type")
    group = obj.get("sessionId") or ctx.default_group
    if not group:
        return None
    uuid = obj.get("uuid")
    mc = ctx.max_chars
    data: dict[str, Any] | None
    if kind == "assistant":
        data = _assistant(obj, mc)
    elif kind == "user":
        data = _user(obj, mc)
    elif kind == "system":
        sub = obj.get("subtype")
        if sub == "compact_boundary":
            data = {"k": "cb"}
        elif sub == "api_error":
            data = {"k": "apierr", "t": redact_clip(str(obj.get("error") or ""), 300)}
        else:
            return None
    elif kind in ("custom-title", "ai-title"):
        title = obj.get("customTitle") or obj.get("aiTitle") or ""
        data = {"k": "title", "t": redact_clip(str(title), 200), "p": kind == "custom-title"}
    elif kind in DROP_TYPES:
        return None
    else:
        data = {"k": "unk", "type": redact_short(str(kind)[:60])}
    if data is None:
        return None
    _common(obj, data, ctx)
    key = uuid or data.get("_key")
    data.pop("_key", None)
    return (str(key) if key else "", str(group), data)


def _assistant(obj: dict[str, Any], mc: int) -> dict[str, Any]:
    msg = obj.get("message") or {}
    if not isinstance(msg, dict):
        msg = {}
    data: dict[str, Any] = {"k": "a", "mid": msg.get("id") or obj.get("requestId") or ""}
    model = msg.get("model")
    if model and model != "<synthetic>":
        data["m"] = redact_short(model)
    usage = msg.get("usage")
    if isinstance(usage, dict):
        cache = usage.get("cache_creation_input_tokens") or 0
        breakdown = usage.get("cache_creation")
        if not cache and isinstance(breakdown, dict):
            cache = sum(breakdown.get(k) or 0 for k in _CACHE_BREAKDOWN)
        inp = (usage.get("input_tokens") or 0) + cache + (usage.get("cache_read_input_tokens") or 0)
        data["in"] = inp
        data["out"] = usage.get("output_tokens") or 0
    texts: list[str] = []
    tools: list[list[Any]] = []
    content = msg.get("content")
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            bt = block.get("type")
            if bt == "text":
                texts.append(str(block.get("text") or ""))
            elif bt in ("tool_use", "server_tool_use"):
                name = redact_short(str(block.get("name") or "?"))
                args = block.get("input")
                skill = args.get("skill") if name == "Skill" and isinstance(args, dict) else None
                tools.append(
                    [str(block.get("id") or ""), name,
                     redact_clip(_args_summary(name, args), ARGS_CHARS), redact_short(skill)]
                )  # fmt: skip
    text = "\n".join(t for t in texts if t.strip())
    if obj.get("isApiErrorMessage") or model == "<synthetic>":
        data["err"] = redact_clip(text, 300)
    elif text:
        data["t"] = redact_clip(text, mc)
    if tools:
        data["tools"] = tools
    return data


def _tool_result(block: dict[str, Any]) -> list[Any]:
    text, images = _text_of(block.get("content"))
    if images:
        text = f"{text}\n[{images} image(s)]".strip()
    is_error = bool(block.get("is_error"))
    rejected = is_error and any(m in text for m in REJECT_MARKERS)
    code = None
    if is_error:
        m = _EXIT_CODE.search(text[:200])
        code = int(m.group(1)) if m else None
    excerpt = redact_clip(text, EXCERPT_CHARS)
    return [str(block.get("tool_use_id") or ""), int(is_error), int(rejected), code, excerpt]


def _user(obj: dict[str, Any], mc: int) -> dict[str, Any] | None:
    msg = obj.get("message") or {}
    content = msg.get("content") if isinstance(msg, dict) else None
    results = []
    if isinstance(content, list):
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    text, images = _text_of(content)
    text = text.strip()
    if results:
        data: dict[str, Any] = {"k": "tr", "r": [_tool_result(b) for b in results]}
        if text.startswith(INTERRUPT_PREFIX):
            data["int"] = redact_clip(text, 120)
        return data
    if text.startswith(INTERRUPT_PREFIX):
        return {"k": "int", "t": redact_clip(text, 120)}
    if obj.get("isCompactSummary") or text.startswith(COMPACT_PREFIX):
        return {"k": "cs"}
    if obj.get("isMeta"):
        if text.startswith("Stop hook feedback:"):
            return {"k": "hook", "t": redact_clip(text, 300)}
        return None  # command expansions, skill bodies, caveats: harness text
    if obj.get("isSidechain"):
        # A subagent's prompt: written by the model, not the human. Kept only as a title.
        return {"k": "sp", "t": redact_clip(text.split("\n", 1)[0], 120)}
    if "<command-name>" in text:
        name = _CMD_NAME.search(text)
        args = _CMD_ARGS.search(text)
        command = (name.group(1) if name else "").strip()
        if args and args.group(1).strip():
            command = f"{command} {args.group(1).strip()}"
        return {"k": "cmd", "t": redact_clip(command, 300)}
    if text.startswith("<bash-input>"):
        m = _BASH_INPUT.search(text)
        return {"k": "cmd", "t": redact_clip("!" + (m.group(1) if m else ""), 300)}
    if text.startswith(HARNESS_PREFIXES):
        return None
    text = strip_reminders(text)
    if not text and not images:
        return None
    if images:
        text = f"{text}\n[{images} image(s)]".strip()
    return {"k": "h", "t": redact_clip(text, mc)}


# ---------------------------------------------------------------------------- build


class _Builder:
    """Replays one session's events into turns and tool calls."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.turn: Turn | None = None
        self.calls: dict[str, ToolCall] = {}
        self.usage: dict[str, tuple[int, int, int]] = {}  # message id -> (in, out, turn idx)
        self.last_was_text = False
        self.title_rank = 0.0

    def new_turn(self, kind: str, ts: str | None) -> Turn:
        self._close()
        self.turn = Turn(idx=len(self.s.turns), kind=kind)
        self.turn.touch(ts)
        self.s.turns.append(self.turn)
        self.last_was_text = False
        return self.turn

    def _close(self) -> None:
        t = self.turn
        if t is None:
            return
        pending = any(not c.answered for c in t.tool_calls)
        t.finished = bool(self.last_was_text and not t.interrupted and not pending)

    def current(self, ts: str | None) -> Turn:
        if self.turn is None:
            kind = SUBAGENT if self.s.kind == "subagent" else CONTINUATION
            return self.new_turn(kind, ts)
        return self.turn

    def feed(self, d: dict[str, Any]) -> None:
        s, k, ts = self.s, d.get("k"), d.get("ts")
        s.touch(ts)
        if not s.project and d.get("cwd"):
            s.project = d["cwd"]
        if not s.branch and d.get("br"):
            s.branch = d["br"]
        if d.get("v"):
            s.cli_version = d["v"]
        if d.get("ep") == "sdk-cli" and s.kind == "main":
            s.kind = "headless"
        if k == "h":
            t = self.new_turn(HUMAN, ts)
            t.user_text = d.get("t", "")
            self._title(t.user_text.split("\n", 1)[0][:120], 1)
        elif k == "cmd":
            self.new_turn(COMMAND, ts).command = d.get("t", "")
            self._title(d.get("t"), 0.5)
        elif k == "sp":
            self.new_turn(SUBAGENT, ts)
            self._title(d.get("t"), 1)
        elif k == "a":
            t = self.current(ts)
            t.touch(ts)
            if d.get("m"):
                s.model = d["m"]
            mid = d.get("mid") or ""
            if "in" in d:
                prev = self.usage.get(mid)
                out = max(d.get("out", 0), prev[1] if prev else 0)
                self.usage[mid] = (d["in"], out, prev[2] if prev else t.idx)
            if d.get("err"):
                t.api_error = d["err"]
            if d.get("t"):
                t.assistant_parts.append(d["t"])
                self.last_was_text = True
            for call_id, name, args, skill in d.get("tools", ()):
                call = ToolCall(id=call_id, name=name, args_summary=args)
                t.tool_calls.append(call)
                if call_id:
                    self.calls[call_id] = call
                if skill and skill not in t.skills:
                    t.skills.append(skill)
                self.last_was_text = False
        elif k == "tr":
            t = self.current(ts)
            t.touch(ts)
            for call_id, is_error, rejected, code, excerpt in d.get("r", ()):
                done = self.calls.get(call_id)
                if done is None:  # result whose call is before a compaction or in another file
                    continue
                done.answered = True
                done.is_error = bool(is_error)
                done.rejected = bool(rejected)
                done.exit_code = code
                done.output_excerpt = excerpt
            if d.get("int"):
                t.interrupted = d["int"]
        elif k == "int":
            t = self.current(ts)
            t.interrupted = d.get("t", "")
        elif k == "apierr" and self.turn is not None:
            self.turn.api_error = self.turn.api_error or d.get("t", "")
        elif k == "title":
            self._title(d.get("t"), 3 if d.get("p") else 2)
        elif k == "unk":
            s.unknown_records += 1

    def _title(self, title: str | None, rank: float) -> None:
        """custom-title > ai-title > first prompt; the first of each rank wins."""
        if title and rank > self.title_rank:
            self.s.title = title
            self.title_rank = rank

    def finish(self) -> None:
        self._close()
        # Drop slash-command turns that made the agent do nothing (/mcp, /model …).
        kept = [t for t in self.s.turns
                if t.kind != COMMAND or t.assistant_parts or t.tool_calls]  # fmt: skip
        remap = {t.idx: i for i, t in enumerate(kept)}
        for i, t in enumerate(kept):
            t.idx = i
        self.s.turns = kept
        for inp, out, idx in self.usage.values():
            self.s.input_tokens += inp
            self.s.output_tokens += out
            if idx in remap:
                kept[remap[idx]].input_tokens += inp
                kept[remap[idx]].output_tokens += out


def build(group: str, events: Iterable[dict[str, Any]]) -> list[Session]:
    """Events of one Claude session group (file order) → main session + subagent sessions."""
    main = Session(id=group, source=SOURCE_NAME, grp=group)
    builders: dict[str, _Builder] = {}
    side_root: dict[str, str] = {}  # inline sidechain record uuid -> sidechain session id
    main_b = _Builder(main)
    order: list[_Builder] = []
    for d in events:
        sc = d.get("sc")
        if sc is None:
            main_b.feed(d)
            continue
        if sc:
            sid = f"{group}:agent-{sc}"
        else:  # inline (1.0.x): follow parentUuid to the sidechain's root
            parent = d.get("pu")
            root = side_root.get(parent) if parent else None
            sid = root or f"{group}:sidechain-{str(d.get('u') or len(side_root))[:8]}"
            if d.get("u"):
                side_root[d["u"]] = sid
        b = builders.get(sid)
        if b is None:
            sub = Session(id=sid, source=SOURCE_NAME, grp=group, parent_id=group, kind="subagent")
            b = builders[sid] = _Builder(sub)
            order.append(b)
        b.feed(d)
    out = []
    for b in [main_b, *order]:
        b.finish()
        out.append(b.s)
    for b in order:
        b.s.project = b.s.project or main.project
    if not (main.started_at or main.turns):  # only subagent files of this session so far
        out = [s for s in out if s is not main]
    return out


SOURCE = Source(
    name=SOURCE_NAME,
    log_dirs=lambda root: [root / "projects"],
    is_log=lambda name: name.endswith(".jsonl"),
    skip_dirs=frozenset({"memory", "tool-results"}),
    context=file_ctx,
    skip_line=skip_bytes,
    problem=claude_problem,
    event=record_event,
    build=build,
)
