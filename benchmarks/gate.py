"""SIMULATION benchmark: our gate vs "accept if the mean went up", side by side.

Per trial: draw n validation tasks from a simulated world (per-judge pass probabilities of
the world's starting skill, so difficulty and judge counts vary like in the sim), define the
candidate, sample scores, ask each gate. Conditions:
  neutral   — the candidate changes nothing (A/A);
  harmful   — the candidate teaches a plausible harmful rule of the world (its exact effect
              on this pool is printed);
  helpful+10 / helpful+20 — the edit helps 40% of the tasks (the ones that "need" it),
              scaled so the expected mean score rises by exactly 10 / 20 points.
"ours" is the gate as a default night runs it (trainer.gate.decide_in_looks): fresh samples
for both sides in looks of `samples` per task up to `max_samples`, futility stop after a
look whose mean effect is <= 0, one sign-flip test at the end at the alpha share of one
planned step (alpha / planned steps — the smallest share a comparison ever gets).
"ours@0.05,k" is the bare test (decide) with `samples` per side at alpha=0.05: its A/A rate
checks the calibration of the test itself. The baseline sees one sample per task per side
and accepts if the mean rose.

Usage: python benchmarks/gate.py [--json] [--trials N] [--sweep]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trainer.edits import Edit, apply_edit  # noqa: E402
from trainer.gate import decide, decide_in_looks  # noqa: E402
from trainer.settings import TrainSettings  # noqa: E402
from trainer.sim import SimWorld  # noqa: E402

CONDITIONS = ("neutral", "harmful", "helpful+10", "helpful+20")
TARGETS = {"neutral": ("<=", 0.05), "harmful": ("<=", 0.01), "helpful+20@50": (">=", 0.80)}


def pools(seed: int = 0) -> dict[str, list[np.ndarray]]:
    """Per-task judge probabilities for incumbent and each candidate, on a large val pool."""
    world = SimWorld.generate(seed, n_rules=8, n_harmful=4, n_train=0, n_val=2000, n_test=0)
    base = world.task_probs(world.start_skill, "val")
    harm_text = "- " + world.harmful[0].paraphrases[0]  # undermines the rule the skill teaches
    harmful = world.task_probs(apply_edit(world.start_skill, Edit("add", text=harm_text)), "val")
    rng = np.random.default_rng(seed)
    inc = [np.array(p) for p in base]
    out = {"incumbent": inc, "neutral": inc, "harmful": [np.array(p) for p in harmful]}
    needs = rng.random(len(inc)) < 0.4
    headroom = np.mean([np.mean(1 - p) for p, n in zip(inc, needs, strict=True) if n]) * 0.4
    for delta in (10, 20):
        r = (delta / 100) / headroom
        out[f"helpful+{delta}"] = [
            p + (1 - p) * r if n else p for p, n in zip(inc, needs, strict=True)
        ]
    return out


def _scores(rng: np.random.Generator, probs: list[np.ndarray], idx: np.ndarray, k: int):
    return [list(np.mean(rng.random((k, len(probs[i]))) < probs[i], axis=1)) for i in idx]


def run(trials: int, settings: TrainSettings, seed: int = 0) -> dict:
    pool = pools(seed)
    inc_mean = float(np.mean([p.mean() for p in pool["incumbent"]]))
    effects = {c: float(np.mean([p.mean() for p in pool[c]])) - inc_mean for c in CONDITIONS}
    rng = np.random.default_rng(seed + 1)
    k, top, night = settings.samples, settings.max_samples, settings.alpha_per_comparison
    bare = f"ours@0.05,k={k}"
    res: dict[str, dict[str, float]] = {"ours": {}, bare: {}, "mean-went-up": {}}
    calls: dict[str, float] = {}
    for n in (20, 50):
        for cond in CONDITIONS:
            acc = {g: 0 for g in res}
            used = 0
            for _ in range(trials):
                idx = rng.choice(len(pool["incumbent"]), size=n, replace=False)

                def draw(samples: range, cond=cond, idx=idx):
                    return (
                        _scores(rng, pool[cond], idx, len(samples)),
                        _scores(rng, pool["incumbent"], idx, len(samples)),
                    )

                looks = decide_in_looks(draw, step=k, top=top, alpha=night)
                acc["ours"] += looks.decision.verdict == "accept"
                used += 2 * n * looks.samples
                cand, inc = draw(range(k))
                acc[bare] += decide(cand, inc, alpha=0.05).verdict == "accept"
                c1, i1 = draw(range(1))
                acc["mean-went-up"] += np.mean(c1) > np.mean(i1)
            for g in res:
                res[g][f"{cond}@{n}"] = acc[g] / trials
            calls[f"{cond}@{n}"] = used / trials
    return {"results": res, "effects": effects, "ours_calls_per_comparison": calls}


def _wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Binomial 95% interval of an acceptance rate over n trials."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--sweep", action="store_true", help="also sweep k to justify the default")
    args = ap.parse_args()
    s = TrainSettings()
    t0 = time.time()
    out = run(args.trials, s)
    sweep = {}
    if args.sweep:  # the bare test at the night's alpha share, k samples in one look
        for kk in (1, 2, 4, 8, 16):
            one = replace(s, samples=kk, max_samples=kk)
            r = run(max(200, args.trials // 4), one)["results"]["ours"]
            sweep[kk] = {c: r[c] for c in ("neutral@50", "harmful@50", "helpful+20@50")}
    if args.json:
        payload = dict(out["results"])
        payload["_meta"] = {
            "label": "SIMULATION",
            "samples_per_look": s.samples,
            "max_samples": s.max_samples,
            "night_alpha_share": s.alpha_per_comparison,
            "trials": args.trials,
            "effects": out["effects"],
            "ours_calls_per_comparison": out["ours_calls_per_comparison"],
            "sweep_single_look": sweep,
        }
        print(json.dumps(payload, indent=2))
        return
    print(
        f"SIMULATION — gate benchmark, {args.trials} trials per cell. ours: looks of "
        f"k={s.samples} up to {s.max_samples} samples/task/side, alpha share "
        f"{s.alpha_per_comparison:.4g}; baseline: 1 sample/task/side"
    )
    print(
        "exact expected effects on the pool: "
        + ", ".join(f"{c} {v:+.3f}" for c, v in out["effects"].items())
    )
    cells = list(out["results"]["ours"])
    print(f"{'condition':<16}" + "".join(f"{g:>14}" for g in out["results"]))
    for c in cells:
        print(f"{c:<16}" + "".join(f"{out['results'][g][c]:>14.3f}" for g in out["results"]))
    ours = out["results"]["ours"]
    for cond, (op, target) in TARGETS.items():
        keys = [cond] if "@" in cond else [f"{cond}@20", f"{cond}@50"]
        for key in keys:
            v = ours[key]
            ok = v <= target if op == "<=" else v >= target
            lo, hi = _wilson(v, args.trials)
            print(
                f"target ours {key} {op} {target}: {v:.3f} (95% CI {lo:.3f}-{hi:.3f}) "
                f"{'OK' if ok else 'MISSED'}"
            )
    print(
        "ours, mean calls per comparison: "
        + ", ".join(f"{c} {v:.0f}" for c, v in out["ours_calls_per_comparison"].items())
    )
    for kk, r in sweep.items():
        print(f"single look, k={kk}: " + ", ".join(f"{c} {v:.3f}" for c, v in r.items()))
    print(f"({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
