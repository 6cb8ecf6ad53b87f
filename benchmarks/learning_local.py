"""REAL-MODEL benchmark: what a night learns on the embedded models, against GEPA and the
usual "accept if the mean went up", on four kinds of task a coding-agent user repeats.

The tasks are benchmarks/learning_tasks.py's (a generator written for this benchmark, seeded;
not the demo's samples): commit messages for a diff, changelog entries, CI-log summaries and
pytest regression tests, each kind with four house rules the user stated in corrections,
8 train / 16 val / 16 test tasks, rule judges and a content check (no rubric). Per kind and
seed, six arms on the same tasks, models (the embedded 0.5B target, the 1.5B optimizer; the
target and optimizer at temperature 0.7 as a night runs them, each attempt with its task's
and sample's paired seed) and one call cache:

  no skill        no skill at all
  start           the user's skill as they wrote it (the house rules are not in it)
  pasted          the start skill with the user's train corrections appended verbatim, no gate
  mean-went-up    our loop, accepting when the val mean beats the incumbent's stored score
  gepa            gepa.optimize over our rollouts and judges (benchmarks/gepa_arm.py), the
                  1.5B as its reflection model
  ours            our loop and gate (trainer.optimize, the defaults a night uses)

The three that learn get the same budget of calls to learn (`--budget`, all roles, cached or
not); every arm's skill is then measured the same way on the test tasks, against the start
skill, paired by task and sample (`test_samples` answers a task and side): pass-all (the
share of answers passing every judge: what the user would have accepted) and the mean score,
each before, after, lift and a 95% interval over tasks. Calls, paid calls (the rest came
from the shared cache), wall time with the load average, and the origins of accepted edits.

The goal (issue 37): ours raises pass-all on test with the interval above zero, at least as
much as gepa and mean-went-up, never below the start skill.

With --nights N, ours runs N nights of the budget each (one ledger: a comparison a night's
budget cut goes on the next night, as the daemon runs it) and the other learning arms get the
N budgets' calls in one run.

Usage: python benchmarks/learning_local.py [--kinds K,...] [--seeds N] [--budget CALLS] [--nights N]
       [--sizes TRAIN,VAL,TEST] [--test-samples N] [--threads N] [--cache DIR]
       [--out FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from gepa_arm import run_gepa  # noqa: E402
from learning import MeanWentUp  # noqa: E402
from learning_tasks import KINDS, SPLITS, Generated, generate, pasted  # noqa: E402

from skillopt_sleep.demo import DEMO_SETTINGS  # noqa: E402
from skillopt_sleep.night.store import SqliteCache  # noqa: E402
from skillopt_sleep.settings import config as config_mod  # noqa: E402
from skillopt_sleep.store import open_store  # noqa: E402
from trainer import TrainSettings, optimize  # noqa: E402
from trainer.backends.base import Roles  # noqa: E402
from trainer.backends.config import local_from_config  # noqa: E402
from trainer.backends.factory import local_overrides  # noqa: E402
from trainer.backends.local import LocalModels  # noqa: E402
from trainer.budget import Budget, BudgetLimits  # noqa: E402
from trainer.cache import Cache, MemoryLedger  # noqa: E402
from trainer.calls import Caller  # noqa: E402
from trainer.measure import Measurer, test_calls  # noqa: E402
from trainer.result import RunResult, TestLift, paired_interval  # noqa: E402
from trainer.rollout import ChatRollout  # noqa: E402
from trainer.skill import SkillDoc  # noqa: E402
from trainer.tasks import Task  # noqa: E402

LABEL = "REAL MODELS: embedded Qwen2.5-Coder (llama.cpp on this machine), no simulation."
ARMS = ("no skill", "start", "pasted", "mean-went-up", "gepa", "ours")
RUN_ID = "bench"  # the trainer's test tag is test:<run_id>: arms share the start's answers
TEST_SAMPLES = 2


def settings_for(
    gen: Generated, seed: int, budget: int, test_samples: int = TEST_SAMPLES
) -> TrainSettings:
    """A night's trainer on this kind, as small as the demo's: 3 steps of 4 train tasks, as
    many sweeps of the val tasks per comparison as the demo allows (the fewest that can show
    the smallest gain worth having on 16 val tasks); `budget` calls to learn (the test's are
    kept apart, as a night reserves them)."""
    n_test = sum(t.split == "test" for t in gen.tasks)
    test = test_calls([t for t in gen.tasks if t.split == "test"], test_samples)
    assert test == 2 * test_samples * n_test
    return TrainSettings(
        epochs=1,
        steps_per_epoch=3,
        minibatch=4,
        train_samples=1,
        samples=1,
        max_samples=DEMO_SETTINGS["trainer.max_samples"],
        test_samples=test_samples,
        max_answer_tokens=gen.kind.max_answer_tokens,
        seed=seed,
        run_id=RUN_ID,
        budget=BudgetLimits(max_calls=budget + test),
    )


def measured(lift: TestLift) -> dict[str, Any]:
    p = lift.pass_all
    return {
        "pass_all": None if p is None else {
            "before": p.before, "after": p.after, "lift": p.lift,
            "ci95": [_num(p.ci_low), _num(p.ci_high)], "n_tasks": p.n_tasks,
        },
        "mean": {
            "before": lift.start_score, "after": lift.best_score, "lift": _num(lift.lift),
            "ci95": [_num(lift.ci_low), _num(lift.ci_high)], "n_tasks": lift.n_tasks,
        },
    }  # fmt: skip


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def absolute(
    measure: Measurer, doc: SkillDoc, test: list[Task], test_samples: int = TEST_SAMPLES
) -> dict[str, Any]:
    """A skill's own test pass-all and mean with 95% intervals over tasks (same answers as
    its lift: the same sample ids)."""
    (grid,) = measure.grid([doc], test, f"test:{RUN_ID}", range(test_samples))
    rows = [[s for s in row if s is not None] for row in grid]
    rows = [r for r in rows if r]
    passes = [float(np.mean([float(bool(s.pass_all)) for s in r])) for r in rows]
    means = [float(np.mean([s.score for s in r])) for r in rows]
    out = {}
    for name, xs in (("pass_all", passes), ("mean", means)):
        m, lo, hi = paired_interval(xs)
        out[name] = {"value": m, "ci95": [_num(lo), _num(hi)], "n_tasks": len(xs)}
    return out


def run_kind(
    gen: Generated,
    seed: int,
    budget: int,
    roles: Roles,
    cache: Cache,
    say: Any = print,
    arms: tuple[str, ...] = ARMS,
    test_samples: int = TEST_SAMPLES,
    nights: int = 1,
) -> dict[str, dict[str, Any]]:
    """Every arm on one kind and seed. With `nights` > 1, ours runs that many nights of
    `budget` calls each, a comparison cut short going on the next night (one ledger), and
    the other learning arms get the same calls in one run."""
    settings = settings_for(gen, seed, budget, test_samples)
    test = sorted((t for t in gen.tasks if t.split == "test"), key=lambda t: t.id)
    n_test = test_calls(test, test_samples)
    counters: Counter[str] = Counter()
    caller = Caller(roles, cache, Budget())
    measure = Measurer(caller, ChatRollout(roles.target), counters, settings.max_answer_tokens)
    start = gen.start
    rows: dict[str, dict[str, Any]] = {}

    def finish(arm: str, doc: SkillDoc, t0: float, load0: float, **extra: Any) -> None:
        paid0 = caller.budget.usage.live_calls
        lift = measure.lift(doc, start, test, f"test:{RUN_ID}", range(test_samples))
        rows[arm] = {
            **measured(lift),
            "skill_test": absolute(measure, doc, test, test_samples),
            "test_paid_calls": caller.budget.usage.live_calls - paid0,
            "wall_s": round(time.monotonic() - t0, 1),
            "load_1min": [round(load0, 2), round(os.getloadavg()[0], 2)],
            "skill": doc.render() if arm in ("pasted", "mean-went-up", "gepa", "ours") else None,
            **extra,
        }
        p = rows[arm]["skill_test"]["pass_all"]
        say(f"{gen.kind.name} seed {seed} {arm}: pass-all {p['value']:.2f} {p['ci95']}, "
            f"{rows[arm]['wall_s']:.0f} s")  # fmt: skip

    for arm in arms:
        t0, load0 = time.monotonic(), os.getloadavg()[0]
        if arm == "no skill":
            finish(arm, SkillDoc(name=start.name, description="", body=""), t0, load0, calls=0)
        elif arm == "start":
            finish(arm, start, t0, load0, calls=0)
        elif arm == "pasted":
            finish(arm, pasted(gen), t0, load0, calls=0)
        elif arm == "ours" and nights > 1:
            doc, learned = _nights(start, gen.tasks, roles, settings, cache, nights, budget)
            finish(arm, doc, t0, load0, **learned)
        elif arm in ("ours", "mean-went-up"):
            kw = {"gate": MeanWentUp()} if arm == "mean-went-up" else {}
            total = replace(settings, budget=BudgetLimits(max_calls=budget * nights + n_test))
            r = optimize(start, gen.tasks, roles, settings=total, cache=cache, **kw)
            finish(arm, r.best_skill, t0, load0, **_learned(r))
        else:
            g = run_gepa(start, gen.tasks, roles, max_calls=budget * nights, seed=seed,
                         max_answer_tokens=settings.max_answer_tokens, cache=cache)  # fmt: skip
            finish(
                arm, g.best, t0, load0, calls=g.usage["calls"], paid_calls=g.usage["live_calls"],
                by_role={k: v.get("calls") for k, v in g.usage.get("by_role", {}).items()},
                accepted=[{"origin": "gepa", "candidates": g.candidates}]
                if g.best.hash != start.hash else [],
                reflections=g.reflections, stop=g.stop,
            )  # fmt: skip
    return rows


def _learned(r: RunResult) -> dict[str, Any]:
    """What a run of our loop spent and decided, for the arm's row."""
    return {
        "calls": r.counters.get("calls_to_learn", 0),
        "paid_calls": r.usage.live_calls,
        "by_role": {k: v.get("calls") for k, v in r.usage.by_role.items()},
        "accepted": [
            {"origin": h.origin, "edits": [e.text or e.anchor for e in h.edits]} for h in r.history
        ],  # fmt: skip
        "rejected": len(r.rejected),
        "pending": len(r.pending),
        "stop": r.stop_reason,
        "counters": r.counters,
    }


def _nights(
    start: SkillDoc,
    tasks: list[Task],
    roles: Roles,
    settings: TrainSettings,
    cache: Cache,
    nights: int,
    budget: int,
) -> tuple[SkillDoc, dict[str, Any]]:
    """Our loop over several nights, as the daemon runs it: one ledger, each night its own
    run id (fresh samples) and `budget` calls, starting from the last night's best skill.
    The first night is the one-night arm's run (same settings: its calls come from the
    cache); the later ones leave the test split to the benchmark's own measurement."""
    ledger = MemoryLedger()
    doc, per_night, calls, paid = start, [], 0, 0
    learn = [t for t in tasks if t.split != "test"]
    for night in range(nights):
        if night == 0:
            r = optimize(doc, tasks, roles, settings=settings, cache=cache, ledger=ledger)
        else:
            later = replace(settings, run_id=f"{RUN_ID}-night-{night + 1}",
                            budget=BudgetLimits(max_calls=budget))  # fmt: skip
            r = optimize(doc, learn, roles, settings=later, cache=cache, ledger=ledger)
        doc = r.best_skill
        row = _learned(r)
        calls, paid = calls + row["calls"], paid + row["paid_calls"]
        kept = {k: row[k] for k in ("calls", "accepted", "rejected", "pending", "stop")}
        per_night.append({**kept, "continued": r.counters.get("pending_continued", 0)})
    accepted = [a for n in per_night for a in n["accepted"]]
    return doc, {"calls": calls, "paid_calls": paid, "accepted": accepted, "nights": per_night}


def goals(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The issue's goal for one kind and seed, each part with its figure."""
    if not {"ours", "gepa", "mean-went-up"} <= set(rows):
        return {}
    ours = rows["ours"]["pass_all"]
    lift = lambda arm: (rows[arm]["pass_all"] or {}).get("lift")  # noqa: E731
    return {
        "ours_pass_all_lift": ours["lift"] if ours else None,
        "ours_ci_above_zero": bool(ours and ours["ci95"][0] is not None and ours["ci95"][0] > 0),
        "at_least_gepa": bool(ours and lift("gepa") is not None and ours["lift"] >= lift("gepa")),
        "at_least_mean_went_up": bool(
            ours and lift("mean-went-up") is not None and ours["lift"] >= lift("mean-went-up")
        ),
        "never_below_start": bool(ours and ours["lift"] >= 0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--arms", default=",".join(ARMS))
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--budget", type=int, default=200, help="calls to learn, per learning arm")
    ap.add_argument("--nights", type=int, default=1,
                    help="nights of --budget calls for ours; the others get as many")  # fmt: skip
    ap.add_argument("--sizes", default=",".join(str(n) for n in SPLITS.values()),
                    help="tasks per kind in train,val,test")  # fmt: skip
    ap.add_argument("--test-samples", type=int, default=TEST_SAMPLES,
                    help="answers per test task and side")  # fmt: skip
    ap.add_argument("--threads", type=int, default=None, help="llama.cpp threads per server")
    ap.add_argument("--cache", type=Path, default=None, help="a store to keep calls in")
    ap.add_argument("--out", type=Path, default=None, help="write the JSON here")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    sizes = dict(zip(SPLITS, (int(n) for n in args.sizes.split(",")), strict=True))
    say = (lambda m: None) if args.json else (lambda m: print(f"  {m}", file=sys.stderr))
    overrides: dict[str, Any] = {"models.backend": "local"}
    if args.threads:
        overrides["models.local.threads"] = args.threads
    config = config_mod.load(overrides=overrides, environ={})
    local = local_from_config(config["models"])
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="skillopt-learning-local-") as tmp:
        db = open_store(args.cache or Path(tmp))
        cache = SqliteCache(db)
        with LocalModels(local, local_overrides(config["models"]), progress=say) as models:
            roles, servers = models.roles(), models.describe()
            results: dict[str, Any] = {}
            for kind in kinds:
                for seed in range(args.seeds):
                    gen = generate(kind, seed, sizes)
                    arms = tuple(a for a in args.arms.split(",") if a)
                    rows = run_kind(gen, seed, args.budget, roles, cache, say, arms,
                                    args.test_samples, args.nights)  # fmt: skip
                    results.setdefault(kind, {})[str(seed)] = {
                        "arms": rows,
                        "goals": goals(rows),
                        "tasks": {s: sum(t.split == s for t in gen.tasks) for s in SPLITS},
                        "dropped_content_checks": gen.dropped_content_checks,
                    }
                    if args.out:
                        write(args.out, out(results, args, local, servers, t0))
        db.close()
    doc = out(results, args, local, servers, t0)
    if args.out:
        write(args.out, doc)
    if args.json:
        print(json.dumps(doc, indent=2))
        return
    print(table(doc))


def out(results: dict, args: argparse.Namespace, local: Any, servers: Any, t0: float) -> dict:
    return {
        "label": LABEL,
        "models": {r: getattr(local, r) for r in ("optimizer", "target", "judge")},
        "servers": servers,
        "budget_calls_to_learn": args.budget,
        "nights": args.nights,
        "test_samples": args.test_samples,
        "seeds": args.seeds,
        "results": results,
        "wall_s": round(time.time() - t0, 1),
    }


def write(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    tmp.replace(path)


def table(doc: dict) -> str:
    lines = [doc["label"], f"budget {doc['budget_calls_to_learn']} calls to learn per arm"]
    head = f"{'kind':<17}{'seed':<5}{'arm':<14}{'pass-all':>9}{'lift':>7}{'95% CI':>16}"
    head += f"{'mean':>6}{'calls':>7}{'paid':>6}{'wall s':>8}  origins"
    lines.append(head)
    for kind, seeds in doc["results"].items():
        for seed, res in seeds.items():
            for arm, r in res["arms"].items():
                p = r["pass_all"] or {}
                ci = p.get("ci95") or [None, None]
                cis = "n/a" if ci[0] is None else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"
                lift = "n/a" if p.get("lift") is None else f"{p['lift']:+.2f}"
                origins = ",".join(a["origin"] for a in r.get("accepted", []))
                lines.append(
                    f"{kind:<17}{seed:<5}{arm:<14}{r['skill_test']['pass_all']['value']:>9.2f}"
                    f"{lift:>7}{cis:>16}{r['skill_test']['mean']['value']:>6.2f}"
                    f"{r.get('calls', 0):>7}{r.get('paid_calls', 0):>6}{r['wall_s']:>8.0f}  "
                    f"{origins}"
                )
            lines.append(f"  goals: {res['goals']}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
