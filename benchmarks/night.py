"""Night benchmark: a full night on a generated corpus, the simulated world as the model.

    python benchmarks/night.py [--json] [--sessions 2000] [--seed 0] [--latency 1.0]

Writes ``--sessions`` sessions in the real Claude Code and Codex formats
(``benchmarks/corpus.py``) to a temporary directory and runs one whole night on them
(ingest → mine → plan → train → promote → report) with ``models.backend: sim``, default
trainer and mining settings (every distinct request a task; val and test capped per
cluster), up to 3 skills, no call budget.
Reported: wall time per phase, the
time spent inside the simulated model calls versus everything else the night does
(overhead: SQLite cache and checkpoints, scoring, gating, reports), peak memory (max RSS of
the process), and a projection with a realistic per-call latency (``--latency`` seconds,
calls made one after another): the night's own overhead is small next to real calls.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import shutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.corpus import write_corpus  # noqa: E402
from skillopt_sleep import promotion as promote_mod  # noqa: E402
from skillopt_sleep.night import run as night_mod  # noqa: E402
from skillopt_sleep.night.roles import default_roles  # noqa: E402
from skillopt_sleep.settings import config as config_mod  # noqa: E402
from trainer.backends.base import Completion, Message, Roles  # noqa: E402
from trainer.tasks import Task  # noqa: E402

PHASES = ("ingest", "mine", "plan", "roles", "train", "promote", "report")


class Timers:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()

    def wrap(self, phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                with self.lock:
                    self.seconds[phase] += time.perf_counter() - t
                    self.calls[phase] += 1

        return timed


class TimedBackend:
    """Passes calls through to the simulated backend, timing each one."""

    def __init__(self, inner: Any, timers: Timers, role: str) -> None:
        self.inner, self.timers, self.role = inner, timers, role
        self.identity = inner.identity
        self.concurrency = inner.concurrency
        self.simulation = getattr(inner, "simulation", False)

    def complete(self, messages: list[Message], **kwargs: Any) -> Completion:
        return self.timers.wrap(f"model:{self.role}", self.inner.complete)(messages, **kwargs)


def run(n_sessions: int, seed: int, latency: float, keep: Path | None = None) -> dict[str, Any]:
    tmp = Path(keep or tempfile.mkdtemp(prefix="skillopt-night-bench-"))
    try:
        t = time.perf_counter()
        corpus = write_corpus(tmp / "logs", n_sessions, seed=seed)
        corpus_seconds = time.perf_counter() - t
        config = config_mod.load(
            overrides={
                "state_dir": str(tmp / "state"),
                "sources.claude.roots": [str(tmp / "logs" / ".claude")],
                "sources.codex.roots": [str(tmp / "logs" / ".codex")],
                "promotion.targets": [str(tmp / "skills")],
                "models.backend": "sim",
                "budget.max_calls": None,
                "budget.max_cost_usd": None,
                "daemon.deadline": "23:59",
            },
            environ={},
        )
        timers = Timers()

        @contextlib.contextmanager
        def roles_factory(cfg: Mapping[str, Any], tasks: list[Task]) -> Iterator[Roles]:
            t = time.perf_counter()
            with default_roles(cfg, tasks) as roles:
                timers.seconds["roles"] += time.perf_counter() - t
                yield Roles(
                    TimedBackend(roles.optimizer, timers, "optimizer"),
                    TimedBackend(roles.target, timers, "target"),
                    TimedBackend(roles.judge, timers, "judge"),
                )

        patches = {
            (night_mod, "ingest_logs"): "ingest",
            (night_mod, "mine"): "mine",
            (night_mod, "plan_night"): "plan",
            (night_mod, "optimize"): "train",
            (promote_mod, "promote"): "promote",
            (night_mod, "build_summary"): "report",
            (night_mod, "write_reports"): "report",
        }
        saved = {k: getattr(*k) for k in patches}
        for (mod, name), phase in patches.items():
            setattr(mod, name, timers.wrap(phase, getattr(mod, name)))
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            t = time.perf_counter()
            outcome = night_mod.run_night(
                config, roles_factory=roles_factory, progress=lambda m: None
            )
            total = time.perf_counter() - t
        finally:
            for (mod, name), fn in saved.items():
                setattr(mod, name, fn)
        rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    finally:
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    summary = outcome.to_json()
    model_s = sum(v for k, v in timers.seconds.items() if k.startswith("model:"))
    model_calls = sum(v for k, v in timers.calls.items() if k.startswith("model:"))
    phases = {p: round(timers.seconds.get(p, 0.0), 3) for p in PHASES}
    phases["other"] = round(total - sum(timers.seconds.get(p, 0.0) for p in PHASES), 3)
    overhead = total - model_s
    projected_calls = model_calls * latency
    return {
        "sessions": corpus.sessions,
        "requests": corpus.requests,
        "corpus_seconds": round(corpus_seconds, 2),
        "status": outcome.status,
        "ingest": {k: summary["ingest"][k] for k in ("files_changed", "new_sessions", "new_turns")},
        "mining": summary["mining"],
        "skills": [
            {
                "name": s["name"],
                "n_tasks": s["n_tasks"],
                "outcome": s["outcome"],
                "calls": s["usage"].get("calls", 0),
                "test": s["test"],  # held-out mean and pass-all, with their intervals
            }
            for s in summary["skills"]
        ],  # fmt: skip
        "not_trained": summary.get("not_trained", []),
        "wall_seconds": round(total, 3),
        "phases_seconds": phases,
        "train_seconds_outside_model_calls": round(timers.seconds["train"] - model_s, 3),
        "model_calls": model_calls,
        "model_calls_by_role": {
            k[6:]: v for k, v in timers.calls.items() if k.startswith("model:")
        },
        "sim_model_seconds": round(model_s, 3),
        "overhead_seconds": round(overhead, 3),
        "overhead_share": round(overhead / total, 3) if total else 0.0,
        "overhead_ms_per_call": round(1000 * overhead / model_calls, 3) if model_calls else None,
        "peak_rss_mb": round(rss_peak / 1024, 1),
        "rss_before_night_mb": round(rss_before / 1024, 1),
        "projection": {
            "latency_per_call_s": latency,
            "model_seconds": round(projected_calls, 1),
            "night_seconds": round(projected_calls + overhead, 1),
            "overhead_share": round(overhead / (projected_calls + overhead), 4)
            if model_calls
            else 0.0,
        },
    }


def _signed(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--latency", type=float, default=1.0, help="seconds per real call")
    ap.add_argument("--keep", type=Path, help="work in this directory and keep it")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    r = run(args.sessions, args.seed, args.latency, args.keep)
    if args.json:
        print(json.dumps(r, indent=2))
        return
    print(f"night on {r['sessions']} sessions ({r['requests']} requests), simulated model")
    print(f"  status {r['status']}; mined {r['mining']}")
    for s in r["skills"]:
        print(f"  skill {s['name']}: {s['n_tasks']} -> {s['outcome']} ({s['calls']} calls)")
        for label, t in (
            ("mean score", s["test"]),
            ("pass-all", (s["test"] or {}).get("pass_all")),
        ):
            if t:
                print(
                    f"    held-out {label} {t['before']:.2f} -> {t['after']:.2f}, lift "
                    f"{_signed(t['lift'])} (95% CI {_signed(t['ci_low'])} to "
                    f"{_signed(t['ci_high'])}, {t['n_tasks']} tasks)"
                )
    print(f"  wall {r['wall_seconds']:.2f} s; peak RSS {r['peak_rss_mb']} MB")
    for phase, sec in r["phases_seconds"].items():
        print(f"    {phase:8s} {sec:8.3f} s")
    print(
        f"  {r['model_calls']} model calls took {r['sim_model_seconds']:.2f} s (simulated); "
        f"everything else {r['overhead_seconds']:.2f} s = {r['overhead_share']:.0%} of the night "
        f"({r['overhead_ms_per_call']} ms per call)"
    )
    p = r["projection"]
    print(
        f"  at {p['latency_per_call_s']} s per real call: model {p['model_seconds']:.0f} s, "
        f"night {p['night_seconds']:.0f} s, overhead {p['overhead_share']:.2%}"
    )


if __name__ == "__main__":
    main()
