# ruff: noqa: E501 - fixture paths stay one per line
"""A real-shaped ingest corpus: the records of ``../shared/fixtures/real``, resampled.

    from benchmarks.ingest_corpus import write_corpus
    info = write_corpus(home, claude_mb=150, codex_mb=30, seed=7)

Every line written is a real record of the fixtures (Claude Code 1.0.98 … 2.1.152, Codex
0.77 … 0.135), re-serialized with fresh ids, times and project paths and otherwise
unchanged, so record sizes are the real ones: Read results and tool outputs of 20–60 KB
(duplicated in ``toolUseResult``), thinking blocks with signatures, progress and hook
records, Codex base instructions and exec outputs. A session is the head of one real file
(its leading summaries and snapshots, or a rollout's ``session_meta`` and instructions)
followed by *blocks* drawn at random from all real files of that tool: a block is one
human request and every record after it up to the next request. Ids are remapped per
drawn block (uuid chains, ``message.id`` shared by streaming splits, tool-use ↔ result
pairs, Codex ``call_id``s stay paired), so no two drawn copies collide.

Claude sessions also get, as the real tools write them: subagent transcripts (inline
sidechains for 1.0.x heads, project-level ``agent-<8hex>.jsonl`` for 2.0.x, and
``<sessionId>/subagents/agent-<17hex>.jsonl`` for 2.1.x), made of a real subagent prompt
and real agent work marked as sidechain; and compaction (a ``compact_boundary`` record, the
``isCompactSummary`` user record and, for 2.1.x, the ``agent-acompact-*`` transcript). The
fixtures hold no real compaction summary, so its text is the session's own assistant text.
The hand-made coverage files (``99_HANDMADE``) only lend the compaction boundary's shape.
Deterministic by seed (and the fixtures' content).
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

REAL = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "real"
HANDMADE = "99_HANDMADE"
# Main Claude transcripts, by the version family that decides the subagent layout.
# ``06 …/turn-1.jsonl`` is a byte prefix of ``turn-2.jsonl`` and is left out.
CLAUDE_FILES = {
    "01_v1.0.98_init-command_tool-error/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": "1.0",
    "02_v1.0.108_inline-sidechain_tool-errors/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl": "1.0",
    "04_v2.0.64_project-level-agent-file/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl": "2.0",
    "05_v2.1.4_summaries_thinking_tool-error/session-9eda1058.jsonl": "2.1",
    "06_v2.1.7_incremental-append_leading-summaries/turn-2.jsonl": "2.1",
    "08_v2.1.38_progress-hooks_bash-progress/tool_heavy.jsonl": "2.1",
    "10_v2.1.152_sdk-cli_last-prompt/session-01.jsonl": "2.1",
}  # fmt: skip
CLAUDE_AGENT_FILE = "04_v2.0.64_project-level-agent-file/-tmp-private/agent-36541525.jsonl"
COMPACT_PREFIX = (
    "This session is being continued from a previous conversation that ran out of context."
    " The summary below covers the earlier portion of the conversation.\n\n"
)
COMPACT_PROMPT = (
    "Your task is to create a detailed summary of the conversation so far, paying close"
    " attention to the user's explicit requests and your previous actions."
)
PROJECTS = 30
SUBAGENT_SHARE = 0.3  # sessions with subagent transcripts
COMPACT_SHARE = 0.3  # of the sessions long enough to be compacted (≥ 6 blocks)


def real_fixtures() -> Path | None:
    """``../shared/fixtures/real`` beside the project, or None when it is absent."""
    return REAL if (REAL / "claude").is_dir() and (REAL / "codex").is_dir() else None


def _records(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _is_claude_request(rec: dict[str, Any]) -> bool:
    """A human request (or slash command): a user record that is no tool result."""
    if rec.get("type") != "user" or rec.get("isMeta") or rec.get("isSidechain"):
        return False
    content = (rec.get("message") or {}).get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and not any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def _split(records: list[dict[str, Any]], starts: Any) -> tuple[list[Any], list[list[Any]]]:
    """(head, blocks): records before the first request, then one block per request."""
    head: list[dict[str, Any]] = []
    blocks: list[list[dict[str, Any]]] = []
    for rec in records:
        if starts(rec):
            blocks.append([rec])
        elif blocks:
            blocks[-1].append(rec)
        else:
            head.append(rec)
    return head, blocks


@dataclass
class Pool:
    """The real records, cut into heads and blocks (as bytes: each draw parses a fresh copy)."""

    claude_heads: list[tuple[str, list[bytes]]] = field(default_factory=list)
    claude_blocks: list[list[bytes]] = field(default_factory=list)
    side_prompts: list[bytes] = field(default_factory=list)  # a subagent's first record
    side_work: list[list[bytes]] = field(default_factory=list)  # the work after it
    compact_boundary: bytes = b""
    codex_heads: list[list[bytes]] = field(default_factory=list)
    codex_blocks: list[list[bytes]] = field(default_factory=list)


def load_pool(real: Path) -> Pool:
    pool = Pool()
    dump = orjson.dumps
    for name, family in CLAUDE_FILES.items():
        records = _records(real / "claude" / name)
        main = [r for r in records if not r.get("isSidechain")]
        head, blocks = _split(main, _is_claude_request)
        pool.claude_heads.append((family, [dump(r) for r in head]))
        pool.claude_blocks += [[dump(r) for r in b] for b in blocks]
        side = [r for r in records if r.get("isSidechain")]
        _, side_blocks = _split(
            side, lambda r: r.get("type") == "user" and r.get("parentUuid") is None
        )
        for b in side_blocks:
            pool.side_prompts.append(dump(b[0]))
            if len(b) > 1:
                pool.side_work.append([dump(r) for r in b[1:]])
    agent = _records(real / "claude" / CLAUDE_AGENT_FILE)
    pool.side_prompts.append(dump(agent[0]))
    pool.side_work.append([dump(r) for r in agent[1:]])
    for path in sorted((real / "claude").glob(f"{HANDMADE}*/*.jsonl")):
        for rec in _records(path):
            if rec.get("subtype") == "compact_boundary" and str(rec.get("uuid", "")).isalnum():
                pool.compact_boundary = dump(rec)  # the one with its values kept
                break
    for path in sorted((real / "codex").glob("*/*.jsonl")):
        if path.parent.name.startswith(HANDMADE):
            continue
        records = _records(path)
        head, blocks = _split(
            records, lambda r: (r.get("payload") or {}).get("type") == "user_message"
        )
        pool.codex_heads.append([dump(r) for r in head])
        pool.codex_blocks += [[dump(r) for r in b] for b in blocks]
    return pool


class _Ids:
    """Fresh ids, keeping an id's prefix (``toolu_``, ``msg_``, ``req_``) and length."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def hex(self, n: int) -> str:
        return f"{self.rng.getrandbits(4 * n):0{n}x}"

    def like(self, old: str) -> str:
        if len(old) == 36 and old.count("-") == 4:
            return self.uuid()
        head, sep, tail = old.partition("_")
        if not sep or len(head) > 10:
            head, tail = "", old
        alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        new = "".join(self.rng.choice(alphabet) for _ in range(max(8, len(tail))))
        return f"{head}{sep}{new}"


class _Clock:
    def __init__(self, start: datetime, rng: random.Random) -> None:
        self.now, self.rng = start, rng

    def tick(self) -> str:
        self.now += timedelta(milliseconds=self.rng.randint(200, 20000))
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"


class _ClaudeSession:
    """Writes one Claude session: remapped records, its subagents and compactions."""

    def __init__(self, pool: Pool, rng: random.Random, ids: _Ids, sid: str, cwd: str,
                 clock: _Clock) -> None:  # fmt: skip
        self.pool, self.rng, self.ids = pool, rng, ids
        self.sid, self.cwd, self.clock = sid, cwd, clock
        self.last_uuid: str | None = None
        self.assistant_text: list[str] = []

    def remap(self, raw: bytes, ids: dict[str, str], *, agent: str | None = None) -> dict:
        rec = orjson.loads(raw)

        def new(old: Any) -> Any:
            if not isinstance(old, str) or not old:
                return old
            got = ids.get(old)
            if got is None:
                got = ids[old] = self.ids.like(old)
            return got

        if "sessionId" in rec:
            rec["sessionId"] = self.sid
        if "cwd" in rec:
            rec["cwd"] = self.cwd
        if "timestamp" in rec:
            rec["timestamp"] = self.clock.tick()
        if rec.get("uuid"):
            parent = rec.get("parentUuid")
            rec["parentUuid"] = ids.get(parent, self.last_uuid) if parent else parent
            rec["uuid"] = new(rec["uuid"])
            self.last_uuid = rec["uuid"]
        for key in ("requestId", "toolUseID", "parentToolUseID", "sourceToolUseID",
                    "sourceToolAssistantUUID", "messageId", "promptId", "leafUuid"):  # fmt: skip
            if key in rec:
                rec[key] = new(rec[key])
        if isinstance(rec.get("snapshot"), dict):
            rec["snapshot"]["messageId"] = new(rec["snapshot"].get("messageId"))
        if isinstance(rec.get("toolUseResult"), dict) and "agentId" in rec["toolUseResult"]:
            rec["toolUseResult"]["agentId"] = new(rec["toolUseResult"]["agentId"])
        if agent is not None:
            rec["isSidechain"] = True
            rec["agentId"] = agent
        msg = rec.get("message")
        if isinstance(msg, dict):
            if "id" in msg:
                msg["id"] = new(msg["id"])
            content = msg.get("content")
            for block in content if isinstance(content, list) else ():
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use":
                    block["id"] = new(block.get("id"))
                elif block.get("type") == "tool_result":
                    block["tool_use_id"] = new(block.get("tool_use_id"))
                elif block.get("type") == "text" and msg.get("role") == "assistant":
                    self.assistant_text.append(str(block.get("text") or ""))
        return rec

    def block(self, raws: list[bytes], *, agent: str | None = None) -> list[dict]:
        ids: dict[str, str] = {}
        return [self.remap(raw, ids, agent=agent) for raw in raws]

    def subagent(self, agent: str, *, inline: bool) -> list[dict]:
        """A subagent's transcript: a real subagent prompt, then real agent work."""
        saved = self.last_uuid
        self.last_uuid = None
        ids: dict[str, str] = {}
        prompt = self.remap(self.rng.choice(self.pool.side_prompts), ids, agent=agent)
        prompt["parentUuid"] = None
        out = [prompt]
        for _ in range(self.rng.randint(1, 4)):
            work = self.rng.choice(self.pool.side_work + [b[1:] for b in self.pool.claude_blocks])
            out += self.block(work, agent=agent)
        if inline:
            for rec in out:
                rec.pop("agentId", None)
        self.last_uuid = saved
        return out

    def compaction(self) -> tuple[list[dict], str]:
        """The boundary and summary records, and the summary text (for the acompact agent)."""
        rec = orjson.loads(self.pool.compact_boundary)
        rec.update(sessionId=self.sid, cwd=self.cwd, timestamp=self.clock.tick(),
                   parentUuid=None, logicalParentUuid=self.last_uuid, uuid=self.ids.uuid())  # fmt: skip
        rec["compactMetadata"] = {"trigger": "auto", "preTokens": self.rng.randint(90_000, 180_000)}
        summary, size = [], 0
        for text in reversed(self.assistant_text):
            summary.append(text)
            size += len(text)
            if size > 12_000:
                break
        text = "\n\n".join(reversed(summary))
        user = {"parentUuid": rec["uuid"], "isSidechain": False, "userType": "external",
                "cwd": self.cwd, "sessionId": self.sid, "version": rec.get("version"),
                "gitBranch": "main", "type": "user", "isCompactSummary": True,
                "isVisibleInTranscriptOnly": True,
                "message": {"role": "user", "content": COMPACT_PREFIX + text},
                "uuid": self.ids.uuid(), "timestamp": self.clock.tick()}  # fmt: skip
        self.last_uuid = user["uuid"]
        return [rec, user], text

    def acompact(self, agent: str, summary: str) -> list[dict]:
        base = {"isSidechain": True, "userType": "external", "cwd": self.cwd,
                "sessionId": self.sid, "version": "2.1.38", "gitBranch": "main",
                "agentId": agent}  # fmt: skip
        ask = {**base, "parentUuid": None, "type": "user", "uuid": self.ids.uuid(),
               "message": {"role": "user", "content": COMPACT_PROMPT},
               "timestamp": self.clock.tick()}  # fmt: skip
        reply = {**base, "parentUuid": ask["uuid"], "type": "assistant", "uuid": self.ids.uuid(),
                 "message": {"id": self.ids.like("msg_01" + "x" * 22), "type": "message",
                             "role": "assistant", "model": "claude-sonnet-4-5",
                             "content": [{"type": "text", "text":
                                          f"<analysis>\n{summary[:4000]}\n</analysis>\n"
                                          f"<summary>\n{summary}\n</summary>"}],
                             "usage": {"input_tokens": 12, "output_tokens": len(summary) // 4}},
                 "timestamp": self.clock.tick()}  # fmt: skip
        return [ask, reply]


@dataclass
class CorpusInfo:
    claude_bytes: int = 0
    codex_bytes: int = 0
    claude_files: int = 0
    codex_files: int = 0
    claude_sessions: int = 0
    subagent_files: int = 0
    compactions: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def _write(path: Path, records: list[dict]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    path.write_bytes(data)
    return len(data)


def _n_blocks(rng: random.Random) -> int:
    return max(1, min(200, int(rng.lognormvariate(2.3, 0.9))))


def write_claude(root: Path, pool: Pool, rng: random.Random, target: int, info: CorpusInfo) -> None:
    ids = _Ids(rng)
    start = datetime(2026, 1, 5, 8, tzinfo=UTC)
    while info.claude_bytes < target:
        family, head = rng.choice(pool.claude_heads)
        p = rng.randrange(PROJECTS)
        cwd = f"/home/dev/work/project-{p:02d}"
        sid = ids.uuid()
        clock = _Clock(start + timedelta(hours=rng.randint(0, 24 * 60)), rng)
        s = _ClaudeSession(pool, rng, ids, sid, cwd, clock)
        records = s.block(head)
        n = _n_blocks(rng)
        compact_at = rng.randint(2, n - 2) if n >= 6 and rng.random() < COMPACT_SHARE else -1
        agents = rng.randint(1, 3) if rng.random() < SUBAGENT_SHARE else 0
        agent_at = sorted(rng.randrange(n) for _ in range(agents))
        folder = root / f"-home-dev-work-project-{p:02d}"
        sidecars: list[tuple[Path, list[dict]]] = []
        for i in range(n):
            records += s.block(rng.choice(pool.claude_blocks))
            if i == compact_at:
                recs, summary = s.compaction()
                records += recs
                info.compactions += 1
                if family == "2.1":
                    agent = f"acompact-{ids.hex(6)}"
                    sidecars.append((folder / sid / "subagents" / f"agent-{agent}.jsonl",
                                     s.acompact(agent, summary)))  # fmt: skip
            for _ in range(agent_at.count(i)):
                if family == "1.0":
                    records += s.subagent("", inline=True)
                    continue
                agent = ids.hex(8 if family == "2.0" else 17)
                where = folder if family == "2.0" else folder / sid / "subagents"
                sidecars.append((where / f"agent-{agent}.jsonl", s.subagent(agent, inline=False)))
        info.claude_bytes += _write(folder / f"{sid}.jsonl", records)
        info.claude_files += 1
        info.claude_sessions += 1
        for path, recs in sidecars:
            info.claude_bytes += _write(path, recs)
            info.claude_files += 1
            info.subagent_files += 1


def _codex_session(pool: Pool, rng: random.Random, ids: _Ids, clock: _Clock, sid: str) -> list:
    out = []
    head = rng.choice(pool.codex_heads)
    blocks = [head] + [rng.choice(pool.codex_blocks) for _ in range(_n_blocks(rng))]
    for raws in blocks:
        block_ids: dict[str, str] = {}
        for raw in raws:
            rec = orjson.loads(raw)
            rec["timestamp"] = clock.tick()
            p = rec.get("payload")
            if not isinstance(p, dict):
                out.append(rec)
                continue
            if rec.get("type") == "session_meta":
                p["id"] = sid
                p.pop("session_id", None)
                p["timestamp"] = rec["timestamp"]
            for key in ("call_id", "turn_id"):
                old = p.get(key)
                if isinstance(old, str) and old:
                    p[key] = block_ids.setdefault(old, ids.like(old))
            out.append(rec)
    return out


def write_codex(root: Path, pool: Pool, rng: random.Random, target: int, info: CorpusInfo) -> None:
    ids = _Ids(rng)
    start = datetime(2026, 1, 5, 8, tzinfo=UTC)
    while info.codex_bytes < target:
        when = start + timedelta(hours=rng.randint(0, 24 * 60), seconds=rng.randint(0, 3599))
        sid = ids.uuid()
        records = _codex_session(pool, rng, ids, _Clock(when, rng), sid)
        day = root / when.strftime("%Y/%m/%d")
        name = f"rollout-{when.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl"
        info.codex_bytes += _write(day / name, records)
        info.codex_files += 1


def write_corpus(home: Path, claude_mb: float, codex_mb: float, seed: int = 7,
                 real: Path | None = None) -> CorpusInfo:  # fmt: skip
    """Write ``home/.claude/projects/…`` and ``home/.codex/sessions/…``; sizes in MB (1e6)."""
    real = real or real_fixtures()
    if real is None:
        raise FileNotFoundError(f"real fixtures not found at {REAL}")
    pool = load_pool(real)
    rng = random.Random(seed)
    info = CorpusInfo()
    write_claude(home / ".claude" / "projects", pool, rng, int(claude_mb * 1e6), info)
    write_codex(home / ".codex" / "sessions", pool, rng, int(codex_mb * 1e6), info)
    return info
