"""SIMULATION benchmark: a night of training with our gate vs "accept if the mean went up".

For each seed a fresh simulated world (8 latent rules, 4 harmful look-alikes, 30 train /
50 val / 50 test tasks); both arms start from the same skill with the same optimizer.
  ours          — default TrainSettings (the sequential e-process gate, trainer.gate)
  mean-went-up  — the same loop and optimizer, one sample per val task, accept if the val
                  mean beats the incumbent's stored score (the usual practice). The loop
                  draws one incumbent sweep per incumbent; this rule uses only the first, so
                  the others are left out of its calls.
"calls" = calls to learn: everything before the end-of-night test measurement, which both
arms make the same way (`test_samples` per test task and side) and which is reported apart
("test calls"); "calls_all" includes it.
Test score = the exact expected score of the skill on the held-out test split (the sim knows
the truth); the measured lift with its 95% interval is reported too. Pass-all = the share of
test answers that pass every judge, exact (`SimWorld.expected_pass_all`) and as measured
(`pass_all_interval_above_zero`: last nights whose measured pass-all lift has its 95%
interval above zero).
Accepted steps are classified by the simulation's truth: helpful (teaches a good rule or
drops a harmful one), harmful (teaches a harmful one), neutral (teaches nothing new);
"neutral_accept_nights" is the share of nights (seeds) that accepted at least one neutral
step — the gate's false-accept rate on edits that change nothing.

Nights. `--nights N` runs N nights per seed, each starting from the skill the night before
ended with (as if promoted), with the ledger kept between them: pending candidates go on,
and the incumbent's val sweeps are carried (trainer.engine). "mean-went-up" keeps its stored
score across nights. Lift is then the last night's skill over the first night's start, and
calls are per night.

Paired seeds. The trainer draws both skills' attempts at one task and sample with the same
seed; an endpoint that takes a seed (the embedded llama.cpp, OpenAI-compatible APIs) then
answers similar skills alike. `--paired-share` is the simulated target's share of such
paired draws (`SimParams.paired_share`; its default was measured on the embedded target by
benchmarks/paired_seeds.py); `--paired-share 0` is an endpoint that cannot seed (the agent
CLIs). Both arms get the same target.

Usage: python benchmarks/learning.py [--json] [--seeds N] [--first-seed K] [--nights N]
       [--paired-share S]

The gate's constants were chosen on seeds 0-99; `--first-seed 100` runs seeds nobody tuned
on, which is how to check that a change to the gate holds beyond them.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trainer import MemoryLedger, TrainSettings, optimize  # noqa: E402
from trainer.edits import apply_edits  # noqa: E402
from trainer.gate import Decision  # noqa: E402
from trainer.sim import SimParams, SimWorld  # noqa: E402


class MeanWentUp:
    """The usual rule: accept if the candidate's mean beats the incumbent's *stored* score
    (the score that got the incumbent accepted, one sample per task), as commonly done.
    Stateful, one instance per run; the fresh incumbent samples the loop draws are only used
    for the very first comparison (the starting skill's score)."""

    def __init__(self) -> None:
        self.incumbent_score: float | None = None

    def __call__(self, candidate, incumbent, *, alpha=0.05, min_effect=0.0, no_regression=None):
        cand = float(np.mean([np.mean(c) for c in candidate])) if candidate else 0.0
        if self.incumbent_score is None:
            self.incumbent_score = float(np.mean([np.mean(i) for i in incumbent]))
        effect = cand - self.incumbent_score
        verdict = "accept" if effect > 0 else "reject"
        if verdict == "accept":
            self.incumbent_score = cand
        return Decision(verdict, effect, math.nan, math.nan, len(candidate))


def _unused_incumbent_calls(r, world: SimWorld, first_night: bool) -> int:
    """Val samples of the incumbent the stored-score rule never looks at: every incumbent
    sweep but the first night's first (one sample per task)."""
    n_val = sum(t.split == "val" for t in world.tasks)
    return max(0, r.counters.get("incumbent_sweeps", 0) - first_night) * n_val


def classify(world: SimWorld, r) -> list[str]:
    """Each accepted step as helpful / harmful / neutral, by the rules it teaches (truth)."""
    good = {x.id for x in world.rules}
    doc, kinds = r.start_skill, []
    for step in r.history:
        new, _applied, _failed = apply_edits(doc, list(step.edits))
        before, after = (world.taught(world.target_text(d)) for d in (doc, new))
        gained, lost = after - before, before - after
        if gained - good:
            kinds.append("harmful")
        elif gained or (lost - good):
            kinds.append("helpful")
        else:
            kinds.append("neutral")
        doc = new
    return kinds


def one(seed: int, nights: int = 1, paired_share: float = SimParams.paired_share) -> dict:
    world = SimWorld.generate(seed, params=SimParams(paired_share=paired_share))
    ours = TrainSettings(seed=seed)
    arms = {
        "ours": (ours, None),
        "mean-went-up": (replace(ours, samples=1, max_samples=1), MeanWentUp()),
    }
    start = world.expected_score(world.start_skill)
    out = {}
    for name, (settings, gate) in arms.items():
        kw = {"gate": gate} if gate else {}
        skill, ledger, per_night = world.start_skill, MemoryLedger(), []
        for night in range(nights):
            # the first night is the single night of `--nights 1`, sample for sample
            later = {"seed": seed + 1000 * night, "run_id": f"night-{night}"} if night else {}
            night_settings = replace(settings, **later)
            r = optimize(
                skill, world.tasks, world.roles(), settings=night_settings, ledger=ledger, **kw
            )
            scores = (world.expected_score(r.start_skill), world.expected_score(r.best_skill))
            passes = (
                world.expected_pass_all(r.start_skill),
                world.expected_pass_all(r.best_skill),
            )
            per_night.append((r, scores, classify(world, r), passes))
            skill = r.best_skill
        after = per_night[-1][1][1]
        kinds = [k for _r, _s, night_kinds, _p in per_night for k in night_kinds]
        learn = test_calls = calls_all = 0
        for night, (r, *_) in enumerate(per_night):
            learned = r.counters.get("calls_to_learn", r.usage.calls)
            left_out = _unused_incumbent_calls(r, world, night == 0) if gate else 0
            learn += learned - left_out
            calls_all += r.usage.calls - left_out
            test_calls += r.usage.calls - learned
        last = per_night[-1][0]
        out[name] = {
            "test_before": start,
            "test_after": after,
            "lift": after - start,
            "nights_below_start": sum(b < a - 1e-12 for _, (a, b), *_ in per_night),
            "neutral_nights": sum(
                "neutral" in night_kinds for _r, _s, night_kinds, _p in per_night
            ),
            "measured_lift": last.test.lift,
            "measured_ci": [last.test.ci_low, last.test.ci_high],
            # the share of test answers passing every judge: exact, and as the night measured it
            "pass_all_before": per_night[0][3][0],
            "pass_all_after": per_night[-1][3][1],
            "measured_pass_all": last.test.pass_all.to_dict() if last.test.pass_all else None,
            "calls": learn / nights,
            "calls_all": calls_all / nights,
            "test_calls": test_calls / nights,
            "incumbent_sweeps_carried": sum(
                r.counters.get("incumbent_sweeps_carried", 0) for r, *_ in per_night
            ),
            "accepted_edits": sum(len(h.edits) for r, *_ in per_night for h in r.history),
            "accepted_steps": {k: kinds.count(k) for k in ("helpful", "neutral", "harmful")},
            "comparisons": sum(r.counters.get("comparisons", 0) for r, *_ in per_night) / nights,
            "rejected_at_gate": sum(
                1 for r, *_ in per_night for x in r.rejected if x.reason.startswith("gate")
            ),
            "pending_at_end": len(last.pending),
            "unparseable": sum(r.counters.get("unparseable_proposals", 0) for r, *_ in per_night),
            "stop": last.stop_reason,
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--nights", type=int, default=1)
    ap.add_argument("--paired-share", type=float, default=SimParams.paired_share)
    args = ap.parse_args()
    t0 = time.time()
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    runs = [one(s, args.nights, args.paired_share) for s in seeds]
    summary = {}
    for arm in ("ours", "mean-went-up"):
        rows = [r[arm] for r in runs]
        lifts = np.array([x["lift"] for x in rows])
        summary[arm] = {
            "mean_test_before": float(np.mean([x["test_before"] for x in rows])),
            "mean_test_after": float(np.mean([x["test_after"] for x in rows])),
            "mean_lift": float(lifts.mean()),
            "min_lift": float(lifts.min()),
            "seeds_below_start": int(np.sum(lifts < -1e-12)),
            "nights_below_start": int(sum(x["nights_below_start"] for x in rows)),
            "mean_calls": float(np.mean([x["calls"] for x in rows])),
            "mean_calls_all": float(np.mean([x["calls_all"] for x in rows])),
            "mean_test_calls": float(np.mean([x["test_calls"] for x in rows])),
            "mean_comparisons": float(np.mean([x["comparisons"] for x in rows])),
            "neutral_accept_nights": float(
                np.mean([x["neutral_nights"] for x in rows]) / args.nights
            ),
            "harmful_accept_nights": float(
                np.mean([x["accepted_steps"]["harmful"] > 0 for x in rows])
            ),
            "helpful_steps_accepted": int(sum(x["accepted_steps"]["helpful"] for x in rows)),
            "accepted_edits": int(sum(x["accepted_edits"] for x in rows)),
            "rejected_at_gate": int(sum(x["rejected_at_gate"] for x in rows)),
            "unparseable": int(sum(x["unparseable"] for x in rows)),
            "pending_at_end": int(sum(x["pending_at_end"] for x in rows)),
            "incumbent_sweeps_carried": float(
                np.mean([x["incumbent_sweeps_carried"] for x in rows]) / args.nights
            ),
            "mean_pass_all_before": float(np.mean([x["pass_all_before"] for x in rows])),
            "mean_pass_all_after": float(np.mean([x["pass_all_after"] for x in rows])),
            # last nights whose measured pass-all interval on test is above zero
            "pass_all_interval_above_zero": int(
                sum(
                    (x["measured_pass_all"] or {}).get("ci_low") is not None
                    and x["measured_pass_all"]["ci_low"] > 0
                    for x in rows
                )
            ),
        }
    o, b = summary["ours"], summary["mean-went-up"]
    ratios = {
        "lift_ours_over_baseline": o["mean_lift"] / b["mean_lift"] if b["mean_lift"] else None,
        "calls_ours_over_baseline": o["mean_calls"] / b["mean_calls"],
        "calls_all_ours_over_baseline": o["mean_calls_all"] / b["mean_calls_all"],
        "lift_per_1k_calls_ours": 1000 * o["mean_lift"] / o["mean_calls"],
        "lift_per_1k_calls_baseline": 1000 * b["mean_lift"] / b["mean_calls"],
    }
    checks = {
        "ours_never_below_start": o["seeds_below_start"] == 0,
        "ours_mean_lift_at_least_baseline": o["mean_lift"] >= b["mean_lift"],
        "ours_neutral_accepted_in_at_most_5pct_of_nights": o["neutral_accept_nights"] <= 0.05,
        "ours_calls_at_most_3x_baseline": ratios["calls_ours_over_baseline"] <= 3.0,
    }
    if args.json:
        print(
            json.dumps(
                {
                    "label": "SIMULATION",
                    "seeds": args.seeds,
                    "first_seed": args.first_seed,
                    "nights": args.nights,
                    "paired_share": args.paired_share,
                    "summary": summary,
                    "ratios": ratios,
                    "checks": checks,
                    "per_seed": runs,
                },
                indent=2,
            )
        )
        return
    print(
        f"SIMULATION — learning benchmark over {args.seeds} seeds from {args.first_seed}, "
        f"{args.nights} night(s) each, paired draws {args.paired_share:g} (default settings; "
        "calls per night; "
        "test = exact expected score on the held-out split)"
    )
    keys = list(o)
    print(f"{'':<22}{'ours':>14}{'mean-went-up':>14}")
    for k in keys:
        print(f"{k:<22}{o[k]:>14.4g}{b[k]:>14.4g}")
    for k, v in ratios.items():
        print(f"{k:<30} {v:.3g}" if v is not None else f"{k:<30} n/a")
    print(
        f"target ours never ends a seed below its start on test: "
        f"{o['seeds_below_start']} of {args.seeds} seeds below (min lift {o['min_lift']:+.4f}) "
        f"{'PASS' if checks['ours_never_below_start'] else 'FAIL'}"
    )
    print(
        f"target ours mean lift >= mean-went-up mean lift: {o['mean_lift']:+.4f} vs "
        f"{b['mean_lift']:+.4f} "
        f"{'PASS' if checks['ours_mean_lift_at_least_baseline'] else 'FAIL'}"
    )
    print(
        f"target ours accepts a neutral step in <= 5% of nights: {o['neutral_accept_nights']:.0%} "
        f"(mean-went-up {b['neutral_accept_nights']:.0%}) "
        f"{'PASS' if checks['ours_neutral_accepted_in_at_most_5pct_of_nights'] else 'FAIL'}"
    )
    print(
        f"target ours calls to learn <= 3x mean-went-up: "
        f"{ratios['calls_ours_over_baseline']:.2f}x "
        f"{'PASS' if checks['ours_calls_at_most_3x_baseline'] else 'FAIL'}"
    )
    print(
        "per seed lift (ours / baseline): "
        + ", ".join(f"{r['ours']['lift']:+.3f}/{r['mean-went-up']['lift']:+.3f}" for r in runs)
    )
    print(f"({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
