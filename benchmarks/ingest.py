# ruff: noqa: E501 - log records stay one per line, as in the real files
"""Ingest benchmark: generate a realistic corpus, then measure cold ingest, re-scans, memory.

    .venv/bin/python benchmarks/ingest.py                 # 2,000 sessions, ~1 GB
    .venv/bin/python benchmarks/ingest.py --mb 100 --sessions 200 --json

The corpus mixes Claude Code transcripts (streaming-split assistant records, thinking,
many ``progress`` records, tool results with long outputs duplicated in ``toolUseResult``,
file-history snapshots) and Codex rollouts (22 KB base instructions, reasoning with
encrypted content, unified-exec outputs, ``exec_command_end`` with aggregated output,
token counts). Every measurement runs in a child process so ``ru_maxrss`` is that run's
peak memory alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = [
    "the",
    "function",
    "returns",
    "a",
    "value",
    "when",
    "config",
    "file",
    "test",
    "module",
    "error",
    "path",
    "build",
    "cache",
    "user",
    "request",
    "server",
    "client",
    "token",
    "parse",
    "line",
    "offset",
    "record",
    "session",
    "tool",
    "output",
    "agent",
    "skill",
    "import",
    "class",
    "def",
    "self",
    "return",
    "None",
    "True",
    "False",
    "async",
    "await",
    "yield",
    "lambda",
    "for",
    "while",
    "if",
    "else",
]


def _text(rng: random.Random, n_chars: int) -> str:
    out, size = [], 0
    while size < n_chars:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)[:n_chars]


def _claude_session(rng: random.Random, target: int, blobs: list[str]) -> list[str]:
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    cwd = f"/home/dev/projects/p{rng.randint(1, 40)}"
    base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
            "version": "2.1.38", "gitBranch": "main"}  # fmt: skip
    lines: list[str] = []
    size, parent, n = 0, None, 0

    def emit(rec: dict) -> None:
        nonlocal size, parent, n
        n += 1
        u = str(uuid.UUID(int=rng.getrandbits(128)))
        rec = {"parentUuid": parent, **base, **rec, "uuid": u,
               "timestamp": f"2026-02-{1 + n % 27:02d}T10:{n % 60:02d}:00.000Z"}  # fmt: skip
        parent = u
        s = json.dumps(rec, separators=(",", ":"))
        lines.append(s)
        size += len(s) + 1

    while size < target:
        emit({"type": "user", "message": {"role": "user", "content": _text(rng, 200)}})
        for _ in range(rng.randint(2, 6)):
            mid = f"msg_{rng.getrandbits(64):x}"
            usage = {"input_tokens": 3, "cache_read_input_tokens": 20000, "output_tokens": 50}
            msg = {"id": mid, "type": "message", "role": "assistant", "model": "claude-opus-4-6"}
            emit({"type": "assistant", "message": {**msg, "content": [
                {"type": "thinking", "thinking": _text(rng, 600), "signature": "Eq" + "x" * 300}],
                "usage": usage}})  # fmt: skip
            emit({"type": "assistant", "message": {**msg, "content": [
                {"type": "text", "text": _text(rng, 400)}], "usage": usage}})  # fmt: skip
            tid = f"toolu_{rng.getrandbits(64):x}"
            emit({"type": "assistant", "message": {**msg, "content": [
                {"type": "tool_use", "id": tid, "name": "Bash",
                 "input": {"command": "pytest -q tests/", "description": "run tests"}}],
                "usage": usage}})  # fmt: skip
            for k in range(rng.randint(3, 10)):
                emit({"type": "progress", "data": {"type": "bash_progress", "output": _text(rng, 300),
                      "fullOutput": blobs[k % len(blobs)][:3000]}, "toolUseID": tid})  # fmt: skip
            out = blobs[rng.randrange(len(blobs))]
            err = rng.random() < 0.1
            emit({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tid, "content": out, "is_error": err}]},
                "toolUseResult": {"stdout": out, "stderr": "", "interrupted": False}})  # fmt: skip
        emit({"type": "assistant", "message": {"id": f"msg_{rng.getrandbits(64):x}",
              "type": "message", "role": "assistant", "model": "claude-opus-4-6",
              "content": [{"type": "text", "text": _text(rng, 800)}],
              "usage": {"input_tokens": 3, "output_tokens": 300}}})  # fmt: skip
        lines.append(json.dumps({"type": "file-history-snapshot", "messageId": "m",
                                 "snapshot": {"trackedFileBackups": {}}}))  # fmt: skip
    return lines


def _codex_session(rng: random.Random, target: int, blobs: list[str]) -> tuple[str, list[str]]:
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    lines: list[str] = []
    size, n = 0, 0

    def emit(kind: str, payload: dict) -> None:
        nonlocal size, n
        n += 1
        s = json.dumps({"timestamp": f"2026-02-23T12:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                        "type": kind, "payload": payload}, separators=(",", ":"))  # fmt: skip
        lines.append(s)
        size += len(s) + 1

    emit("session_meta", {"id": sid, "timestamp": "2026-02-23T12:00:00.000Z", "cwd": "/w/r",
                          "originator": "codex-tui", "cli_version": "0.125.0", "source": "cli",
                          "base_instructions": {"text": _text(rng, 22000)}})  # fmt: skip
    total_in = total_out = 0
    while size < target:
        emit("event_msg", {"type": "task_started", "turn_id": "t"})
        emit("response_item", {"type": "message", "role": "user",
                               "content": [{"type": "input_text", "text": "<environment_context>x"}]})  # fmt: skip
        emit("event_msg", {"type": "user_message", "message": _text(rng, 200)})
        for _ in range(rng.randint(2, 8)):
            emit("turn_context", {"cwd": "/w/r", "model": "gpt-5.5", "turn_id": "t"})
            emit("response_item", {"type": "reasoning", "summary": [],
                                   "encrypted_content": "gAAAA" + "z" * 3000})  # fmt: skip
            emit("event_msg", {"type": "agent_message", "message": _text(rng, 200)})
            emit("response_item", {"type": "message", "role": "assistant",
                                   "content": [{"type": "output_text", "text": _text(rng, 200)}]})  # fmt: skip
            cid = f"call_{rng.getrandbits(64):x}"
            emit("response_item", {"type": "function_call", "name": "exec_command", "call_id": cid,
                                   "arguments": json.dumps({"cmd": "cargo test", "workdir": "/w/r"})})  # fmt: skip
            out = blobs[rng.randrange(len(blobs))]
            code = 1 if rng.random() < 0.1 else 0
            emit("response_item", {"type": "function_call_output", "call_id": cid,
                                   "output": f"Chunk ID: a\nWall time: 1 seconds\nProcess exited "
                                             f"with code {code}\nOutput:\n{out}"})  # fmt: skip
            emit("event_msg", {"type": "exec_command_end", "call_id": cid, "exit_code": code,
                               "aggregated_output": out[:10000]})  # fmt: skip
            total_in += 30000
            total_out += 300
            emit("event_msg", {"type": "token_count", "info": {"total_token_usage": {
                "input_tokens": total_in, "output_tokens": total_out}}})  # fmt: skip
        emit("event_msg", {"type": "task_complete", "turn_id": "t"})
    return sid, lines


def generate(root: Path, sessions: int, mb: float, seed: int = 7) -> int:
    """Write the corpus under ``root`` (home layout); return its size in bytes."""
    rng = random.Random(seed)
    blobs = [_text(rng, rng.choice((2000, 8000, 20000, 40000))) for _ in range(24)]
    per = int(mb * 1e6 / max(1, sessions))
    total = 0
    for i in range(sessions):
        if i % 2 == 0:
            lines = _claude_session(rng, per, blobs)
            d = root / ".claude" / "projects" / f"-home-dev-projects-p{i % 40}"
            name = json.loads(lines[0])["sessionId"] + ".jsonl"
        else:
            sid, lines = _codex_session(rng, per, blobs)
            d = root / ".codex" / "sessions" / "2026" / "02" / f"{1 + i % 28:02d}"
            name = f"rollout-2026-02-23T12-00-00-{sid}.jsonl"
        d.mkdir(parents=True, exist_ok=True)
        data = ("\n".join(lines) + "\n").encode()
        (d / name).write_bytes(data)
        total += len(data)
    return total


def _child(mode: str, home: str, state: str) -> None:
    from session_ingest import ingest
    from skillopt_sleep import config as config_mod
    from skillopt_sleep.store import open_store

    cfg = config_mod.load(
        None,
        overrides={
            "sources.claude.roots": [f"{home}/.claude"],
            "sources.codex.roots": [f"{home}/.codex"],
            "state_dir": state,
        },  # fmt: skip
        environ={},
    )
    db = open_store(Path(state))
    t0, c0 = time.perf_counter(), time.process_time()
    report = ingest(db, cfg)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    db.close()
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"mode": mode, "seconds": seconds, "cpu_seconds": cpu, "maxrss_mb": rss_kb / 1024,
                      "files": report.files_scanned, "changed": report.files_changed,
                      "bytes": report.bytes_read, "sessions": report.sessions,
                      "turns": report.turns, "tool_calls": report.tool_calls,
                      "signals": report.signals, "errors": len(report.errors)}))  # fmt: skip


def _run_child(mode: str, home: Path, state: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(home), str(state)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


TARGETS = {"cold_mb_per_s": 150, "rescan_10k_files_seconds": 1.0, "peak_rss_mb": 100}


def _small_files(home: Path, n: int) -> None:
    src = b'{"type":"user","sessionId":"%s","uuid":"%s","message":{"role":"user","content":"hi"}}\n'
    for i in range(n):
        d = home / ".claude" / "projects" / f"-p{i % 100}"
        d.mkdir(parents=True, exist_ok=True)
        sid = str(uuid.UUID(int=i + 1))
        (d / f"{sid}.jsonl").write_bytes(src % (sid.encode(), sid.encode()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--mb", type=float, default=1000.0, help="corpus size in MB")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--small-files", type=int, default=10000)
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(*args.child)
        return
    tmp = Path(tempfile.mkdtemp(prefix="ingest-bench-"))
    try:
        home, state = tmp / "home", tmp / "state"
        t0 = time.perf_counter()
        size = generate(home, args.sessions, args.mb)
        gen_s = time.perf_counter() - t0
        base = _run_child("baseline", tmp / "empty", tmp / "state0")  # interpreter + imports
        load_before = os.getloadavg()[0]
        cold = _run_child("cold", home, state)
        load_after = os.getloadavg()[0]
        rescan = _run_child("rescan", home, state)
        small_home, small_state = tmp / "small", tmp / "state-small"
        _small_files(small_home, args.small_files)
        _run_child("small-cold", small_home, small_state)
        small = _run_child("small-rescan", small_home, small_state)
        db_mb = sum(p.stat().st_size for p in state.iterdir()) / 1e6
        result = {
            "corpus_mb": round(size / 1e6, 1),
            "sessions_generated": args.sessions,
            "generate_seconds": round(gen_s, 1),
            "cold_seconds": round(cold["seconds"], 2),
            "cold_mb_per_s": round(size / 1e6 / cold["seconds"], 1),
            "cold_cpu_seconds": round(cold["cpu_seconds"], 2),
            "cold_mb_per_cpu_s": round(size / 1e6 / cold["cpu_seconds"], 1),
            # The machine may be shared: wall MB/s depends on load, MB per CPU-second less so.
            "load_average_1m_before_cold": round(load_before, 2),
            "load_average_1m_after_cold": round(load_after, 2),
            "cpus": os.cpu_count(),
            "rescan_seconds": round(rescan["seconds"], 3),
            "rescan_10k_files_seconds": round(small["seconds"], 3),
            "small_files": args.small_files,
            "peak_rss_mb": round(cold["maxrss_mb"], 1),
            "baseline_rss_mb": round(base["maxrss_mb"], 1),
            "peak_rss_over_baseline_mb": round(cold["maxrss_mb"] - base["maxrss_mb"], 1),
            "db_mb": round(db_mb, 1),
            "db_to_corpus_ratio": round(db_mb / (size / 1e6), 3),
            "sessions": cold["sessions"],
            "turns": cold["turns"],
            "tool_calls": cold["tool_calls"],
            "signals": cold["signals"],
        }
        mb_s, cpu_mb_s = result["cold_mb_per_s"], result["cold_mb_per_cpu_s"]
        result["targets"] = TARGETS
        result["vs_target"] = {  # > 1 means better than the target
            "cold_mb_per_s": round(mb_s / TARGETS["cold_mb_per_s"], 2),
            "cold_mb_per_cpu_s": round(cpu_mb_s / TARGETS["cold_mb_per_s"], 2),
            "rescan_10k_files_seconds": round(
                TARGETS["rescan_10k_files_seconds"] / max(small["seconds"], 1e-9), 1
            ),
            "peak_rss_mb": round(TARGETS["peak_rss_mb"] / cold["maxrss_mb"], 2),
        }
        result["met"] = {k: v >= 1 for k, v in result["vs_target"].items()}
        if args.json:
            print(json.dumps(result))
        else:
            for k, v in result.items():
                print(f"{k:28} {v}")
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
