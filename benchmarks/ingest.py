"""Ingest benchmark on real-shaped logs: cold ingest, no-change re-scans, memory, the peer.

    .venv/bin/python benchmarks/ingest.py                      # 150 MB Claude + 30 MB Codex
    .venv/bin/python benchmarks/ingest.py --claude-mb 20 --codex-mb 5 --json
    .venv/bin/python benchmarks/ingest.py --peer /tmp/peer/bin/skillopt-sleep --repeat 5

The corpus is ``benchmarks/ingest_corpus.py``: the records of ``../shared/fixtures/real``
resampled to the requested size (real record sizes, subagents, compaction); without
``../shared`` the benchmark says so and exits 0. Every measurement is a child process,
so its ``ru_maxrss`` is that run's peak alone and its CPU seconds are its own (``wait4``).

``--peer`` runs SkillOpt-Sleep 0.2.0's ``harvest`` (PyPI ``skillopt``, installed in a venv
outside this repository: its package is also named ``skillopt_sleep``) on the same Claude
logs, alternating with ours, ``--repeat`` times each; ours is timed both as the library
(``session_ingest`` + the store, in a fresh interpreter) and as ``skillopt-sleep ingest``.
Wall times depend on the machine's load (printed); CPU seconds much less.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.ingest_corpus import REAL, real_fixtures, write_corpus  # noqa: E402

GOALS = {"peer_wall_ratio": 0.5, "peak_rss_mb": 100, "rescan_10k_files_seconds": 0.5}


def _child(home: str, state: str, sources: str) -> None:
    """Runs in the measured process: ingest ``home``'s logs into a store under ``state``."""
    t0, c0 = time.perf_counter(), time.process_time()
    from skillopt_sleep.settings import config as config_mod
    from skillopt_sleep.settings.logs import ingest_logs
    from skillopt_sleep.store import open_store

    cfg = config_mod.load(
        None,
        overrides={
            "sources.claude.roots": [f"{home}/.claude"],
            "sources.codex.roots": [f"{home}/.codex"],
            "state_dir": state,
        },
        environ={},
    )
    db = open_store(Path(state))
    t1, c1 = time.perf_counter(), time.process_time()
    report = ingest_logs(db, cfg, sources.split(","))
    t2, c2 = time.perf_counter(), time.process_time()
    db.close()
    out = {"startup_seconds": t1 - t0, "startup_cpu_seconds": c1 - c0,
           "seconds": t2 - t1, "cpu_seconds": c2 - c1, "files": report.files_scanned,
           "changed": report.files_changed, "bytes": report.bytes_read,
           "sessions": report.sessions, "turns": report.turns, "tool_calls": report.tool_calls,
           "signals": report.signals, "bad_lines": report.bad_lines,
           "errors": len(report.errors)}  # fmt: skip
    print(json.dumps(out))


def run(cmd: list[str], env: dict[str, str] | None = None) -> dict:
    """Run ``cmd`` alone: its wall time, and its own CPU seconds and peak RSS (``wait4``);
    with the fields of the last JSON object it printed."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise SystemExit(f"{cmd[0]} failed ({proc.returncode}): {err.read().decode()[-2000:]}")
        lines = [ln for ln in out.read().decode().splitlines() if ln.startswith("{")]
    try:  # the peer prints indented JSON: not read
        result = json.loads(lines[-1]) if lines else {}
    except ValueError:
        result = {}
    result["process_seconds"] = wall
    result["process_cpu_seconds"] = usage.ru_utime + usage.ru_stime
    result["maxrss_mb"] = usage.ru_maxrss / 1024
    return result


def _ours(home: Path, state: Path, sources: str) -> list[str]:
    return [sys.executable, __file__, "--child", str(home), str(state), sources]


def _small_files(home: Path, n: int) -> None:
    src = b'{"type":"user","sessionId":"%s","uuid":"%s","message":{"role":"user","content":"hi"}}\n'
    for i in range(n):
        d = home / ".claude" / "projects" / f"-p{i % 100}"
        d.mkdir(parents=True, exist_ok=True)
        sid = str(uuid.UUID(int=i + 1))
        (d / f"{sid}.jsonl").write_bytes(src % (sid.encode(), sid.encode()))


def _peer_rounds(args: argparse.Namespace, home: Path, tmp: Path) -> dict:
    """Ours (library and CLI) and the peer's harvest on the Claude logs, alternating."""
    cli = Path(sys.executable).parent / "skillopt-sleep"
    rows: dict[str, list[dict]] = {"ours_library": [], "ours_cli": [], "peer_harvest": []}
    for i in range(args.repeat):
        state = tmp / f"peer-round-{i}"
        rows["ours_library"].append(run(_ours(home, state / "lib", "claude")))
        env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(state / "cli"),
               "XDG_CONFIG_HOME": str(state / "cfg")}  # fmt: skip
        env.pop("CLAUDE_CONFIG_DIR", None)
        rows["ours_cli"].append(run([str(cli), "ingest", "--source", "claude", "--json"], env=env))
        peer_cmd = [args.peer, "harvest", "--claude-home", str(home / ".claude"), "--scope",
                    "all", "--max-sessions", "100000000", "--json"]  # fmt: skip
        peer_env = {**env, "HOME": str(state)}
        peer_env.pop("PYTHONPATH", None)  # its package is also called skillopt_sleep
        rows["peer_harvest"].append(run(peer_cmd, env=peer_env))
        shutil.rmtree(state, ignore_errors=True)
    out: dict[str, dict] = {}
    for name, runs in rows.items():
        out[name] = {
            "wall_seconds_median": round(statistics.median(r["process_seconds"] for r in runs), 2),
            "wall_seconds": [round(r["process_seconds"], 2) for r in runs],
            "cpu_seconds_median": round(
                statistics.median(r["process_cpu_seconds"] for r in runs), 2
            ),
        }
    peer = out["peer_harvest"]
    for name in ("ours_library", "ours_cli"):
        out[name]["wall_vs_peer"] = round(
            out[name]["wall_seconds_median"] / peer["wall_seconds_median"], 2
        )
        out[name]["cpu_vs_peer"] = round(
            out[name]["cpu_seconds_median"] / peer["cpu_seconds_median"], 2
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claude-mb", type=float, default=150.0)
    ap.add_argument("--codex-mb", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--small-files", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each timed measurement")
    ap.add_argument("--peer", help="the peer's skillopt-sleep executable (SkillOpt-Sleep 0.2.0)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(*args.child)
        return
    if real_fixtures() is None:
        print(f"skipped: the real fixtures are not at {REAL} (../shared is not part of a clone)")
        return
    tmp = Path(tempfile.mkdtemp(prefix="ingest-bench-"))
    try:
        home = tmp / "home"
        t0 = time.perf_counter()
        info = write_corpus(home, args.claude_mb, args.codex_mb, seed=args.seed)
        gen_s = time.perf_counter() - t0
        size = info.claude_bytes + info.codex_bytes
        small_home = tmp / "small"
        _small_files(small_home, args.small_files)
        base = run(_ours(tmp / "empty", tmp / "state0", "claude,codex"))
        run(_ours(small_home, tmp / "state-small", "claude"))
        rescans = [run(_ours(small_home, tmp / "state-small", "claude"))
                   for _ in range(args.repeat)]  # fmt: skip
        load_before = os.getloadavg()[0]
        colds = []
        for i in range(args.repeat):
            colds.append(run(_ours(home, tmp / f"state-{i}", "claude,codex")))
            if i:
                shutil.rmtree(tmp / f"state-{i}", ignore_errors=True)
        load_after = os.getloadavg()[0]
        cold = min(colds, key=lambda r: r["cpu_seconds"])
        rescan = run(_ours(home, tmp / "state-0", "claude,codex"))
        db_mb = sum(p.stat().st_size for p in (tmp / "state-0").iterdir()) / 1e6
        seconds = statistics.median(r["seconds"] for r in colds)
        cpu = statistics.median(r["cpu_seconds"] for r in colds)
        result = {
            "corpus": {
                **info.to_dict(),
                "mb": round(size / 1e6, 1),
                "generate_seconds": round(gen_s, 1),
            },  # fmt: skip
            "cold_seconds": [round(r["seconds"], 2) for r in colds],
            "cold_cpu_seconds": [round(r["cpu_seconds"], 2) for r in colds],
            "cold_mb_per_s": round(size / 1e6 / seconds, 1),
            "cold_mb_per_cpu_s": round(size / 1e6 / cpu, 1),
            "startup_cpu_seconds": round(cold["startup_cpu_seconds"], 3),
            "load_average_1m": [round(load_before, 2), round(load_after, 2)],
            "cpus": os.cpu_count(),
            "rescan_seconds": round(rescan["seconds"], 3),
            "rescan_10k_files_seconds": round(statistics.median(r["seconds"] for r in rescans), 3),
            "baseline_rss_mb": round(base["maxrss_mb"], 1),
            "peak_rss_mb": round(max(r["maxrss_mb"] for r in colds), 1),
            "db_mb": round(db_mb, 1),
            "sessions": cold["sessions"],
            "turns": cold["turns"],
            "tool_calls": cold["tool_calls"],
            "signals": cold["signals"],
            "bad_lines": cold["bad_lines"],
            "errors": cold["errors"],
        }
        if args.peer:
            result["peer"] = _peer_rounds(args, home, tmp)
        result["goals"] = GOALS
        if args.json:
            print(json.dumps(result))
        else:
            for k, v in result.items():
                print(f"{k:26} {v}")
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
