"""SIMULATION benchmark: what keeping a cut comparison's samples saves the next night.

A first night's call budget ends the comparison of a helpful edit undecided (the simulated
world of `tests/night/test_night_kept_evidence.py`, one world per seed: 30 val tasks, one
step a night, alpha 1e-6 so that a decision takes several sweeps). The next night, with no
budget, either resumes that comparison with the kept samples (trainer.resume) or, as before
they were kept, starts it anew. Per seed and on average it prints the sweeps and calls the
second night spent until the gate decided, and whether both nights decided alike. Seeds
where the first night already decided (or drew no sweep) are counted and left out.

Usage: python benchmarks/kept_evidence.py [--seeds N] [--budget CALLS] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trainer import JsonLedger, TrainSettings, optimize  # noqa: E402
from trainer.backends.base import Completion, Roles  # noqa: E402
from trainer.budget import BudgetLimits  # noqa: E402
from trainer.result import RunResult  # noqa: E402
from trainer.sim import SimWorld  # noqa: E402

LABEL = "SIMULATION: trainer.sim worlds, a scripted optimizer proposing one helpful rule."
# one step a night, the gate looking after every sweep, at a level that needs several sweeps
# of a helpful rule: a small call budget ends the first night mid-comparison
SETTINGS = TrainSettings(epochs=1, steps_per_epoch=1, minibatch=6, seed=1, screen=False,
                         samples=1, max_samples=40, alpha=1e-6)  # fmt: skip


def proposal(line: str) -> str:
    """The optimizer's answer that adds `line` to the skill."""
    return json.dumps({"edits": [{"kind": "add", "text": f"- {line}"}]})


class Proposes:
    """An optimizer that answers every question with the same one-line edit."""

    simulation, concurrency, identity = True, 1, "proposes-one-rule"

    def __init__(self, line: str) -> None:
        self.text = proposal(line)

    def complete(self, messages: Any, **kwargs: Any) -> Completion:
        return Completion(self.text, 10, 10)


def helpful_rule(world: SimWorld) -> str:
    """A rule of the world that its start skill does not teach: an edit that helps."""
    taught = world.taught(world.start_skill.render())
    return next(r for r in world.rules if r.id not in taught).paraphrases[0]


def _night(world: SimWorld, ledger: Path, run_id: str, limits: BudgetLimits) -> RunResult:
    roles = world.roles()
    return optimize(
        world.start_skill,
        world.tasks,
        Roles(Proposes(helpful_rule(world)), roles.target, roles.judge),
        settings=replace(SETTINGS, run_id=run_id, budget=limits),
        ledger=JsonLedger(ledger),
    )


def one(seed: int, budget: int, tmp: Path) -> dict[str, Any] | None:
    world = SimWorld.generate(seed, n_rules=4, n_harmful=2, n_train=12, n_val=30, n_test=20)
    kept = tmp / f"kept-{seed}.json"
    first = _night(world, kept, "night-1", BudgetLimits(max_calls=budget))
    if not first.pending or not first.pending[0].comparison.get("cut_by"):
        return None
    anew = tmp / f"anew-{seed}.json"
    anew.write_bytes(kept.read_bytes())
    JsonLedger(anew).forget(first.pending[0].edit_hash)  # the samples lost, as before
    out: dict[str, Any] = {"seed": seed, "kept_sweeps": first.counters["candidate_sweeps"]}
    for arm, path in (("resumed", kept), ("anew", anew)):
        r = _night(world, path, "night-2", BudgetLimits())
        out[arm] = {"sweeps": r.counters.get("candidate_sweeps", 0), "calls": r.usage.calls,
                    "accepted": r.accepted}  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budget", type=int, default=480, help="the first night's call budget")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = [one(s, args.budget, Path(tmp)) for s in range(args.seeds)]
    rows = [r for r in runs if r is not None]
    if args.json:
        print(json.dumps({"label": LABEL, "budget": args.budget, "runs": rows}, indent=1))
        return
    print(LABEL)
    print(f"first night's budget {args.budget} calls; {len(rows)} of {args.seeds} seeds cut")
    print("seed  kept  resumed sweeps/calls  anew sweeps/calls  accepted r/a")
    for r in rows:
        a, b = r["resumed"], r["anew"]
        said = f"{a['sweeps']:>7} / {a['calls']:<6}      {b['sweeps']:>5} / {b['calls']:<6}"
        print(f"{r['seed']:>4}  {r['kept_sweeps']:>4}  {said}    {a['accepted']}/{b['accepted']}")
    if rows:
        for key in ("sweeps", "calls"):
            resumed = [r["resumed"][key] for r in rows]
            anew = [r["anew"][key] for r in rows]
            mean_r, mean_a = statistics.mean(resumed), statistics.mean(anew)
            fewer = sum(x < y for x, y in zip(resumed, anew, strict=True))
            print(f"night-2 {key}: mean resumed {mean_r:.1f}, anew {mean_a:.1f} (ratio "
                  f"{mean_r / mean_a:.2f}); median {statistics.median(resumed):g} vs "
                  f"{statistics.median(anew):g}; fewer in {fewer} of {len(rows)}")  # fmt: skip
        same = sum(r["resumed"]["accepted"] == r["anew"]["accepted"] for r in rows)
        print(f"same decision in {same} of {len(rows)}")


if __name__ == "__main__":
    main()
