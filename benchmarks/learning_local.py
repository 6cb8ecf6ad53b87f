"""REAL-MODEL benchmark: nights of training on the embedded models (no simulation).

Each night trains the user's own ``commit-message`` skill on the bundled demo tasks (mined
from the sample sessions and reviewed to rule judges, exactly as ``skillopt-sleep demo``
does) with the demo's trainer settings and its roles' sampling (target and optimizer at
temperature 0.7, the judge at 0, as a night configures them; each attempt drawn with its
task's and sample's paired seed). Night 0 uses the mined splits; night s > 0 re-splits
the same tasks with a seeded shuffle (same train/val/test sizes) and trains with seed s.
Two arms per night, on the same servers and one shared call cache (so both see the same
answers wherever they ask the same thing):

  ours          the real gate (trainer.gate.decide: a sequential e-process, alpha split)
  mean-went-up  the same loop, accepting when the val mean beats the incumbent's stored
                score (benchmarks/learning.MeanWentUp, the usual practice)

Per arm: held-out test score before and after with the 95% interval (the trainer's own
measurement on test tasks the run never saw), accepted and rejected edits, calls (all, and
paid: not replayed from the shared cache), wall time.

At the demo's `max_samples` (2 sweeps of 16 val tasks) no comparison reaches the gate's
futility look (FUTILITY_PAIRS), so the give-up rule and building on a promising candidate
never come into play here: benchmarks/learning.py measures those.

Usage: python benchmarks/learning_local.py [--json] [--nights N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from learning import MeanWentUp  # noqa: E402

from skillopt_sleep import demo  # noqa: E402
from skillopt_sleep.mining import load_tasks  # noqa: E402
from skillopt_sleep.night.settings import train_settings  # noqa: E402
from skillopt_sleep.store import open_store  # noqa: E402
from trainer import MemoryCache, optimize  # noqa: E402
from trainer.backends.config import local_from_config  # noqa: E402
from trainer.backends.factory import local_overrides  # noqa: E402
from trainer.backends.local import LocalModels  # noqa: E402
from trainer.budget import Budget  # noqa: E402
from trainer.calls import Caller, RolloutJob  # noqa: E402
from trainer.rollout import ChatRollout  # noqa: E402
from trainer.scoring import Rollout, Scorer  # noqa: E402
from trainer.skill import SkillDoc  # noqa: E402
from trainer.tasks import Task  # noqa: E402

LABEL = "REAL MODELS: embedded Qwen2.5-Coder (llama.cpp on this machine), no simulation."
SKILL = "commit-message"


def demo_tasks(workdir: Path) -> tuple[list[Task], str, dict]:
    """The demo's reviewed tasks of the commit-message skill, its start text and config."""
    config = demo.prepare(workdir)
    demo.review_tasks(config, workdir / "tasks-reviewed.yaml")
    db = open_store(Path(config["state_dir"]))
    try:
        row = db.execute("select id from clusters where skill = ? and recurring", [SKILL])
        cluster = row.fetchone()[0]
        tasks = load_tasks(db, cluster_id=cluster)
    finally:
        db.close()
    start = (workdir / "skills" / SKILL / "SKILL.md").read_text()
    return tasks, start, config


def resplit(tasks: list[Task], seed: int) -> list[Task]:
    """Night 0: the mined splits. Else a seeded shuffle keeping the split sizes."""
    if seed == 0:
        return tasks
    splits = [t.split for t in tasks]
    order = list(range(len(tasks)))
    random.Random(seed).shuffle(order)
    return [replace(tasks[i], split=splits[j]) for j, i in enumerate(order)]


def start_test_score(start: str, tasks: list[Task], roles, settings, cache) -> float:
    """The start skill's mean test score, measured the way the trainer measures test (same
    sample ids, so the trainer's own test comparison replays these answers from the cache);
    needed because a run that accepts nothing does not measure test at all."""
    doc = SkillDoc.parse(start)
    test = [t for t in tasks if t.split == "test"]
    caller = Caller(roles, cache, Budget())
    jobs = [RolloutJob(doc, t, f"test:{j}") for t in test for j in range(settings.max_samples)]
    outcomes = caller.rollouts(ChatRollout(roles.target), jobs, settings.max_answer_tokens)
    rollouts = [
        Rollout(job.task, job.sample, doc.hash, o)
        for job, o in zip(jobs, outcomes, strict=True)
        if o is not None
    ]
    scored = Scorer(caller, Counter()).score(rollouts)
    return float(np.mean([s.score for s in scored if s is not None]))


def arm(start: str, tasks: list[Task], roles, settings, cache, gate) -> dict:
    t0 = time.monotonic()
    kw = {"gate": gate} if gate else {}
    r = optimize(start, tasks, roles, settings=settings, cache=cache, **kw)
    test = r.test.to_dict()
    return {
        "test_before": test["start_score"],
        "test_after": test["best_score"] if r.accepted else test["start_score"],
        "lift": test["lift"],
        "ci95": [test["ci_low"], test["ci_high"]],
        "n_test": test["n_tasks"],
        "test_method": test["method"],
        "accepted_edits": sum(len(h["edits"]) for h in r.history),
        "rejected_edits": len(r.rejected),
        "rejected_at_gate": sum(1 for x in r.rejected if x["reason"].startswith("gate")),
        "calls": r.usage["calls"],
        "paid_calls": r.usage["live_calls"],
        "wall_s": round(time.monotonic() - t0, 1),
        "stop": r.stop_reason,
        "best_skill": r.best_skill.render() if r.accepted else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--nights", type=int, default=3)
    args = ap.parse_args()
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="skillopt-learning-local-") as tmp:
        tasks, start, config = demo_tasks(Path(tmp))
        base = train_settings(config)
        local = local_from_config(config["models"])
        say = (lambda m: None) if args.json else (lambda m: print(f"  {m}", file=sys.stderr))
        # the roles as a night runs them (target and optimizer sample at 0.7, the judge at 0)
        overrides = local_overrides(config["models"])
        with LocalModels(local, overrides, progress=say) as models:
            roles = models.roles()
            servers = models.describe()
            runs = []
            for seed in range(args.nights):
                night_tasks = resplit(tasks, seed)
                settings = replace(base, seed=seed)
                cache = MemoryCache()
                before = start_test_score(start, night_tasks, roles, settings, cache)
                row = {"night": seed, "start_test_score": before}
                for name, gate in (("ours", None), ("mean-went-up", MeanWentUp())):
                    row[name] = arm(start, night_tasks, roles, settings, cache, gate)
                    if row[name]["test_before"] is None:  # nothing accepted: the start stays
                        row[name].update(test_before=before, test_after=before)
                    say(f"night {seed} {name}: lift {row[name]['lift']:+.3f} {row[name]['ci95']}")
                runs.append(row)
    summary = {}
    for name in ("ours", "mean-went-up"):
        rows = [r[name] for r in runs]
        lifts = np.array([x["lift"] if x["lift"] is not None else np.nan for x in rows])
        summary[name] = {
            "mean_lift": float(np.nanmean(lifts)) if np.isfinite(lifts).any() else None,
            "nights_ci_above_zero": sum(
                1 for x in rows if x["ci95"][0] is not None and x["ci95"][0] > 0
            ),
            "nights_below_start": int(np.nansum(lifts < 0)),
            "accepted_edits": sum(x["accepted_edits"] for x in rows),
            "rejected_edits": sum(x["rejected_edits"] for x in rows),
            "mean_calls": float(np.mean([x["calls"] for x in rows])),
            "mean_wall_s": float(np.mean([x["wall_s"] for x in rows])),
        }
    out = {
        "label": LABEL,
        "nights": args.nights,
        "models": {r: getattr(local, r) for r in ("optimizer", "target", "judge")},
        "servers": servers,
        "tasks": {s: sum(t.split == s for t in tasks) for s in ("train", "val", "test")},
        "summary": summary,
        "per_night": runs,
        "wall_s": round(time.time() - t0, 1),
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{LABEL}\n{args.nights} nights; tasks {out['tasks']}; threads {servers['threads']}")
    print(f"{'night':<6}{'arm':<14}{'before':>8}{'after':>8}{'lift':>8}{'95% CI':>18}"
          f"{'acc':>5}{'rej':>5}{'calls':>7}{'paid':>6}{'wall s':>8}")  # fmt: skip
    for r in runs:
        for name in ("ours", "mean-went-up"):
            x = r[name]
            ci = "n/a" if x["ci95"][0] is None else f"[{x['ci95'][0]:+.2f}, {x['ci95'][1]:+.2f}]"
            before = "n/a" if x["test_before"] is None else f"{x['test_before']:.2f}"
            after = "n/a" if x["test_after"] is None else f"{x['test_after']:.2f}"
            lift = "n/a" if x["lift"] is None else f"{x['lift']:+.2f}"
            print(f"{r['night']:<6}{name:<14}{before:>8}{after:>8}{lift:>8}{ci:>18}"
                  f"{x['accepted_edits']:>5}{x['rejected_edits']:>5}{x['calls']:>7}"
                  f"{x['paid_calls']:>6}{x['wall_s']:>8.0f}")  # fmt: skip
    for name, s in summary.items():
        print(f"{name}: {s}")
    print(f"({out['wall_s']:.0f}s)")


if __name__ == "__main__":
    main()
