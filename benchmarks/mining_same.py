"""Whether a change to mining kept its results: mine the same generated stores with another
revision's code (``--ref``, main by default) and with this tree's, and compare every row.

    python benchmarks/mining_same.py                        # tuning + heldout, 2k, seeds 0-2
    python benchmarks/mining_same.py --sessions 100000 --seeds 0 --generators heldout

Each side mines a copy of one ingested store in its own process (``PYTHONHASHSEED=0`` on
both: ties among a kind's common commands follow set order); compared are the clusters,
their members, the tasks (prompts, judges, meta), the split keys and the run's report,
without the timestamps of the run. Prints per corpus whether all are equal (and the first
difference when not), and each side's wall and CPU seconds and peak RSS; exits 1 on a
difference.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TABLES = {"clusters": "id", "cluster_members": "turn_id", "tasks": "id", "split_keys": "key"}
RUN_TIMES = {"created_at", "updated_at", "assigned_at"}


def dump(where: Path, out: Path) -> dict[str, Any]:
    """Mine a copy of ``where``'s store with the code first on ``sys.path``; write the rows."""
    from skillopt_sleep.mining import mine
    from skillopt_sleep.settings import config as config_mod
    from skillopt_sleep.store import open_store

    home = where / "home"
    state = out.with_suffix(".state")
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(mode=0o700)
    shutil.copy2(home / "state" / "skillopt-sleep.db", state / "skillopt-sleep.db")
    config = config_mod.load(None, environ={}, overrides={
        "sources.claude.roots": [str(home / ".claude"), str(home / "claude")],
        "sources.codex.roots": [str(home / ".codex"), str(home / "codex")],
        "state_dir": str(home / "state")})  # fmt: skip
    db = open_store(state)
    before = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    mine(db, config)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_SELF)
    peak_kb = _peak_rss_kb(after)  # mining's, before the rows are held to compare
    rows: dict[str, Any] = {
        table: [
            {k: v for k, v in r.items() if k not in RUN_TIMES}
            for r in db.query(f"select * from {table} order by {key}")
        ]  # fmt: skip
        for table, key in TABLES.items()
    }
    run = next(db.query("select report from mining_runs order by id desc limit 1"))
    rows["report"] = json.loads(run["report"])
    db.close()
    shutil.rmtree(state, ignore_errors=True)
    out.write_text(json.dumps(rows, sort_keys=True))
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            "peak_rss_mb": round(peak_kb / 1024)}  # fmt: skip


def _peak_rss_kb(usage: resource.struct_rusage) -> int:
    """This process's own peak RSS: Linux's ``VmHWM``. ``ru_maxrss`` keeps the peak of the
    process it was started from (this benchmark's, which generated and ingested the
    corpus: 1,761 MB for 100k held-out sessions whose mining peaked at about 900 MB)."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        return int(usage.ru_maxrss)


def run_dump(code: Path, where: Path, out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONHASHSEED": "0"}
    cmd = [sys.executable, __file__, "--dump", str(code), str(where), str(out)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"mining with {code} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_difference(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    for part in sorted(set(a) | set(b)):
        x, y = a.get(part), b.get(part)
        if x == y:
            continue
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return f"{part}: {len(x)} rows vs {len(y)}"
            i = next(i for i, (r, s) in enumerate(zip(x, y, strict=True)) if r != s)
            cols = [k for k in x[i] if x[i].get(k) != y[i].get(k)]
            return f"{part} row {i}: {', '.join(cols)} differ"
        return f"{part} differs"
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", default="main", help="the revision whose results must be kept")
    ap.add_argument("--generators", default="tuning,heldout")
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--dump", nargs=3, help=argparse.SUPPRESS)  # code, where, out
    args = ap.parse_args()
    if args.dump:
        sys.path[0] = args.dump[0]  # not benchmarks/: its folders would shadow packages
        print(json.dumps(dump(Path(args.dump[1]), Path(args.dump[2]))))
        return
    sys.path.insert(0, str(ROOT))
    from benchmarks import mining_sessions

    same = True
    with tempfile.TemporaryDirectory(prefix="mining-same-") as scratch:
        ref = Path(scratch) / "ref"
        ref.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.ref],
                                 capture_output=True, check=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(ref)], input=archive, check=True)
        for gen in args.generators.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                where = Path(scratch) / f"{gen}-{seed}"
                mining_sessions.prepare(gen, seed, args.sessions, where)
                old = run_dump(ref, where, Path(scratch) / "ref.json")
                new = run_dump(ROOT, where, Path(scratch) / "new.json")
                diff = first_difference(
                    json.loads((Path(scratch) / "ref.json").read_text()),
                    json.loads((Path(scratch) / "new.json").read_text()),
                )
                same &= diff is None
                print(
                    f"{gen}#{seed} {args.sessions} sessions: {'same' if diff is None else diff};"
                    f" {args.ref} {old['wall_seconds']} s wall, {old['cpu_seconds']} s CPU,"
                    f" {old['peak_rss_mb']} MB; this tree {new['wall_seconds']} s wall,"
                    f" {new['cpu_seconds']} s CPU, {new['peak_rss_mb']} MB",
                    flush=True,
                )
                shutil.rmtree(where, ignore_errors=True)
    load = os.getloadavg()
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
