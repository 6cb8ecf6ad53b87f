"""SIMULATION benchmark: our gate vs "accept if the mean went up", one comparison at a time.

Per trial: draw n validation tasks from a simulated world (per-judge pass probabilities of
the world's starting skill, so difficulty and judge counts vary like in the sim), define the
candidate, sample scores, ask each gate. Conditions:
  neutral   — the candidate changes nothing (A/A);
  harmful   — the candidate teaches a plausible harmful rule of the world (its exact effect
              on this pool is printed);
  mixed     — on each trial's tasks, the candidate helps a fifth a lot and hurts the others
              so that its mean is exactly the incumbent's (the weak null: no better on
              average, although it is much better on some tasks);
  helpful+5 / +10 / +20 — the edit helps 40% of the tasks (the ones that "need" it),
              scaled so the expected mean score rises by exactly 5 / 10 / 20 points.
"ours" is the gate as a night runs it on a comparison (trainer.gate.sequential): one sweep
(a fresh sample per task and side) per look, a decision after each, at most `max_samples`
sweeps, at the alpha share of one planned step (alpha / planned steps — the smallest share a
new comparison gets); "pending" is how often it was still undecided at the cap (a night
keeps such a candidate with its evidence). "ours@0.05" is the same at alpha = 0.05: its A/A
and mixed rates check the level of the test itself. The baseline sees one sample per task
per side and accepts if the mean rose. Calls are per comparison, both sides drawn fresh (in
a night the incumbent's sweeps are shared by the comparisons against it: about half this).

Usage: python benchmarks/gate.py [--json] [--trials N] [--sweep] [--paired-share S]
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
from trainer.gate import Evidence, sequential  # noqa: E402
from trainer.settings import TrainSettings  # noqa: E402
from trainer.sim import SimParams, SimWorld  # noqa: E402

CONDITIONS = ("neutral", "harmful", "mixed", "helpful+5", "helpful+10", "helpful+20")
TARGETS = {
    "neutral": ("<=", 0.05),
    "mixed": ("<=", 0.05),
    "harmful": ("<=", 0.01),
    "helpful+20@50": (">=", 0.80),
}


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
    for delta in (5, 10, 20):
        r = (delta / 100) / headroom
        out[f"helpful+{delta}"] = [
            p + (1 - p) * r if n else p for p, n in zip(inc, needs, strict=True)
        ]
    return out


def mixed(inc: list[np.ndarray]) -> list[np.ndarray]:
    """+60% of the headroom on every fifth task, the same total taken from the others."""
    helped = [i % 5 == 0 for i in range(len(inc))]
    up = [p + (1 - p) * 0.6 if h else p for p, h in zip(inc, helped, strict=True)]
    gain = sum(float(np.mean(u - p)) for u, p in zip(up, inc, strict=True))
    room = sum(float(np.mean(p)) for p, h in zip(inc, helped, strict=True) if not h)
    cut = min(1.0, gain / room)  # every judge of an unhelped task loses this share
    return [u if h else p * (1 - cut) for u, p, h in zip(up, inc, helped, strict=True)]


class _Sampler:
    """Scores of one sweep on tasks `idx` (mean over each task's judges), from uniforms of
    shape `shape` (tasks, judges), vectorized."""

    def __init__(self, probs: list[np.ndarray], idx: np.ndarray) -> None:
        width = max(len(probs[i]) for i in idx)
        self.p = np.zeros((len(idx), width))
        self.mask = np.zeros((len(idx), width), dtype=bool)
        for row, i in enumerate(idx):
            self.p[row, : len(probs[i])] = probs[i]
            self.mask[row, : len(probs[i])] = True
        self.count = self.mask.sum(axis=1)
        self.shape = self.p.shape

    def __call__(self, u: np.ndarray) -> np.ndarray:
        return ((u < self.p) & self.mask).sum(axis=1) / self.count


def _sweep(rng, cand, inc, paired: float) -> tuple[np.ndarray, np.ndarray]:
    """One sweep of both sides. A share `paired` of the tasks draw both sides from the same
    uniforms (a paired seed an endpoint honours, see benchmarks/paired_seeds.py); the rest
    draw each side on its own."""
    u_cand, u_inc = rng.random(cand.shape), rng.random(inc.shape)
    shared = rng.random(cand.shape[0]) < paired
    u_inc[shared] = u_cand[shared]
    return cand(u_cand), inc(u_inc)


def _ours(rng, cand, inc, n: int, alpha: float, sweeps: int, paired: float) -> tuple[str, int]:
    def draw(_look: int):
        c, i = _sweep(rng, cand, inc, paired)
        return [[x] for x in c], [[x] for x in i]

    evidence = Evidence.empty(n)
    d = sequential(draw, evidence, looks=sweeps, alpha=alpha)
    return d.verdict, evidence.sweeps


def run(trials: int, settings: TrainSettings, seed: int = 0, paired: float = 0.0) -> dict:
    pool = pools(seed)
    inc_mean = float(np.mean([p.mean() for p in pool["incumbent"]]))
    pool["mixed"] = mixed(pool["incumbent"])  # for the printed effect; trials remake it
    effects = {c: float(np.mean([p.mean() for p in pool[c]])) - inc_mean for c in CONDITIONS}
    rng = np.random.default_rng(seed + 1)
    share, top = settings.alpha_per_comparison, settings.max_samples
    res: dict[str, dict[str, float]] = {"ours": {}, "ours@0.05": {}, "mean-went-up": {}}
    pending: dict[str, float] = {}
    calls: dict[str, float] = {}
    for n in (20, 50):
        for cond in CONDITIONS:
            acc = {g: 0 for g in res}
            held = used = 0
            for _ in range(trials):
                idx = rng.choice(len(pool["incumbent"]), size=n, replace=False)
                inc = _Sampler(pool["incumbent"], idx)
                if cond == "mixed":  # exactly no better on these very tasks
                    drawn = mixed([pool["incumbent"][i] for i in idx])
                    cand = _Sampler(drawn, np.arange(n))
                else:
                    cand = _Sampler(pool[cond], idx)
                verdict, sweeps = _ours(rng, cand, inc, n, share, top, paired)
                acc["ours"] += verdict == "accept"
                held += verdict == "pending"
                used += 2 * n * sweeps
                acc["ours@0.05"] += _ours(rng, cand, inc, n, 0.05, top, paired)[0] == "accept"
                c, i = _sweep(rng, cand, inc, paired)
                acc["mean-went-up"] += c.mean() > i.mean()
            for g in res:
                res[g][f"{cond}@{n}"] = acc[g] / trials
            pending[f"{cond}@{n}"] = held / trials
            calls[f"{cond}@{n}"] = used / trials
    return {
        "results": res,
        "effects": effects,
        "ours_pending": pending,
        "ours_calls_per_comparison": calls,
    }


def _wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Binomial 95% interval of an acceptance rate over n trials."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--trials", type=int, default=600)
    ap.add_argument(
        "--sweep", action="store_true", help="also sweep max_samples to justify the default"
    )
    ap.add_argument(
        "--paired-share",
        type=float,
        default=SimParams.paired_share,
        help="share of tasks whose two sides draw from one seed (0: independent draws)",
    )
    args = ap.parse_args()
    s = TrainSettings()
    t0 = time.time()
    out = run(args.trials, s, paired=args.paired_share)
    sweep = {}
    if args.sweep:
        for cap in (8, 16, 24, 40, 64):
            capped = replace(s, max_samples=cap)
            r = run(max(200, args.trials // 4), capped, paired=args.paired_share)
            sweep[cap] = {
                c: (r["results"]["ours"][c], r["ours_calls_per_comparison"][c])
                for c in ("neutral@50", "helpful+5@50", "helpful+10@50", "helpful+20@50")
            }
    elapsed = time.time() - t0
    if args.json:
        payload = dict(out["results"])
        payload["_meta"] = {
            "label": "SIMULATION",
            "max_samples": s.max_samples,
            "night_alpha_share": s.alpha_per_comparison,
            "trials": args.trials,
            "paired_share": args.paired_share,
            "effects": out["effects"],
            "ours_pending": out["ours_pending"],
            "ours_calls_per_comparison": out["ours_calls_per_comparison"],
            "sweep_max_samples": sweep,
            "seconds": round(elapsed, 1),
        }
        print(json.dumps(payload, indent=2))
        return
    print(
        f"SIMULATION — gate benchmark, {args.trials} trials per cell. ours: a look after every "
        f"sweep, at most {s.max_samples} sweeps, alpha share {s.alpha_per_comparison:.4g}; "
        f"baseline: 1 sample/task/side; paired draws on {args.paired_share:.0%} of tasks"
    )
    print(
        "exact expected effects on the pool: "
        + ", ".join(f"{c} {v:+.3f}" for c, v in out["effects"].items())
    )
    cells = list(out["results"]["ours"])
    head = [*out["results"], "ours pending", "ours calls"]
    print(f"{'condition':<16}" + "".join(f"{g:>14}" for g in head))
    for c in cells:
        row = [out["results"][g][c] for g in out["results"]] + [out["ours_pending"][c]]
        print(
            f"{c:<16}"
            + "".join(f"{v:>14.3f}" for v in row)
            + f"{out['ours_calls_per_comparison'][c]:>14.0f}"
        )
    ours = out["results"]["ours"]
    for cond, (op, target) in TARGETS.items():
        keys = [cond] if "@" in cond else [f"{cond}@20", f"{cond}@50"]
        for key in keys:
            for gate in ("ours", "ours@0.05") if op == "<=" else ("ours",):
                v = out["results"][gate][key]
                ok = v <= (target if gate == "ours" or cond == "harmful" else 0.05)
                if op == ">=":
                    ok = v >= target
                lo, hi = _wilson(v, args.trials)
                print(
                    f"target {gate} {key} {op} {target}: {v:.3f} (95% CI {lo:.3f}-{hi:.3f}) "
                    f"{'OK' if ok else 'MISSED'}"
                )
    _ = ours
    for cap, r in sweep.items():
        print(
            f"max_samples={cap}: "
            + ", ".join(f"{c} {v:.3f} ({k:.0f} calls)" for c, (v, k) in r.items())
        )
    print(f"({elapsed:.1f}s)")


if __name__ == "__main__":
    main()
