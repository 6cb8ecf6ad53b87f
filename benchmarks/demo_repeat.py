"""REAL-MODEL benchmark: README's demo night, N times from fresh state.

Each run is `skillopt-sleep demo` as README says to run it (the embedded models, its own
10-minute night), in a new temporary directory: fresh state, store, reports and skill
folders; only the joined model files in the user's cache are shared. Per run: whether the
night ended better on pass-all (the held-out share of answers passing every judge, its 95%
interval above zero: the summary's outcome "improved" on pass-all), pass-all and the mean
before and after, the edits accepted and where they came from, calls, wall time, and the
load average before and after (the machine is shared: a loaded one takes longer).

The goal (issue 37): at least 9 of 10 runs better, each night within 10 minutes on a quiet
2-core machine.

Usage: python benchmarks/demo_repeat.py --runs N [--minutes M] [--out FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LABEL = "REAL MODELS: embedded Qwen2.5-Coder (llama.cpp on this machine), no simulation."
GOAL_RUNS, GOAL_MINUTES = 0.9, 10


def script() -> str:
    """The installed console script of this interpreter (it runs this checkout's code:
    PYTHONPATH is set to it)."""
    path = Path(sysconfig.get_path("scripts")) / "skillopt-sleep"
    if not path.is_file():
        sys.exit(f"skillopt-sleep is not installed for {sys.executable}: pip install -e .")
    return str(path)


def one_run(n: int, minutes: int, say: Any) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLOPT_SLEEP_")}
    env["PYTHONPATH"] = str(ROOT)
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix=f"skillopt-demo-repeat-{n}-") as tmp:
        t0 = time.monotonic()
        proc = subprocess.run(
            [script(), "demo", "--dir", str(Path(tmp) / "demo"), "--minutes", str(minutes)],
            env=env, capture_output=True, text=True, cwd=tmp,
        )  # fmt: skip
        wall = time.monotonic() - t0
        row: dict[str, Any] = {
            "run": n,
            "exit": proc.returncode,
            "wall_s": round(wall, 1),
            "load_before": [round(x, 2) for x in load0],
            "load_after": [round(x, 2) for x in os.getloadavg()],
        }
        reports = list((Path(tmp) / "demo").rglob("report.json"))
        if proc.returncode != 0 or not reports:
            row["error"] = proc.stderr.strip().splitlines()[-1:] or ["no report"]
            say(f"run {n}: failed ({row['error'][0]}), {wall:.0f} s")
            return row
        summary = json.loads(reports[0].read_text())
    (skill,) = summary["skills"]
    test = skill.get("test") or {}
    passes = test.get("pass_all") or {}
    row.update(
        outcome=skill.get("outcome"),
        metric=skill.get("metric"),
        better=skill.get("outcome") == "improved" and skill.get("metric") == "pass-all",
        pass_all={k: passes.get(k) for k in ("before", "after", "lift", "ci_low", "ci_high")},
        mean={k: test.get(k) for k in ("before", "after", "lift", "ci_low", "ci_high")},
        n_tasks=skill.get("n_tasks"),
        accepted=[
            {"origin": a["origin"], "edits": [e.get("text") for e in a["edits"]]}
            for a in skill.get("accepted", [])
        ],  # fmt: skip
        calls=(skill.get("usage") or {}).get("calls"),
        stopped_by=skill.get("stopped_by"),
        plan=(skill.get("plan") or {}).get("shows"),
        models={r: m.get("model") for r, m in (summary.get("models") or {}).items()},
    )
    p = row["pass_all"]
    say(
        f"run {n}: {row['outcome']}, pass-all {p['before']} -> {p['after']} "
        f"[{p['ci_low']}, {p['ci_high']}], {wall:.0f} s, load {load0[0]:.1f}"
    )
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--minutes", type=int, default=10, help="the demo's own default: 10")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    say = (lambda m: None) if args.json else (lambda m: print(m, file=sys.stderr))
    rows: list[dict[str, Any]] = []
    for n in range(1, args.runs + 1):
        rows.append(one_run(n, args.minutes, say))
        if args.out:
            write(args.out, result(rows, args))
    doc = result(rows, args)
    if args.out:
        write(args.out, doc)
    print(json.dumps(doc, indent=2) if args.json else text(doc))


def result(rows: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    better = sum(1 for r in rows if r.get("better"))
    walls = [r["wall_s"] for r in rows]
    return {
        "label": LABEL,
        "command": f"skillopt-sleep demo --minutes {args.minutes}",
        "runs": len(rows),
        "better": better,
        "goal": f">= {GOAL_RUNS:.0%} of runs better, each night <= {GOAL_MINUTES} min",
        "goal_met": bool(rows) and better >= GOAL_RUNS * len(rows)
        and max(walls) <= GOAL_MINUTES * 60,
        "max_wall_s": max(walls, default=None),
        "per_run": rows,
    }  # fmt: skip


def write(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    tmp.replace(path)


def text(doc: dict[str, Any]) -> str:
    lines = [doc["label"], f"{doc['command']}: {doc['better']} of {doc['runs']} runs better"]
    for r in doc["per_run"]:
        p = r.get("pass_all") or {}
        lines.append(
            f"  run {r['run']}: {r.get('outcome', 'failed')}, pass-all {p.get('before')} -> "
            f"{p.get('after')} [{p.get('ci_low')}, {p.get('ci_high')}], {r['wall_s']:.0f} s, "
            f"load {r['load_before'][0]} -> {r['load_after'][0]}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
