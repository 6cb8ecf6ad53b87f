"""REAL-MODEL benchmark: how much paired seeds cut the noise of a skill comparison.

The gate tests x = (candidate's score) − (incumbent's score) on the same val task and sweep.
With independent draws the two answers' sampling noise adds up in x; the trainer instead
draws both with the seed of the task and sweep (`trainer.backends.base.paired_seed`), so a
backend that seeds its sampler (llama.cpp, OpenAI-compatible endpoints) answers two similar
skills from one random stream. This measures, on the embedded target, what that buys.

The demo's commit-message tasks (rule-judged: under 12 words, no headings, no diff lines),
answered at the target's own temperature (0.7) by the embedded 0.5B target with the start
skill A and two edits of it: B, the start with the rules stated (an edit that helps), and
C, the start with one line that changes nothing the judges check (a neutral edit). Each
sample k of a task is drawn with the paired seed for A, B and C, and once more for B and C
with a seed of their own (an independent draw). Per edit it prints the share of identical
answers, the variance of x paired and independent, and their ratio: the factor by which a
fixed-precision comparison needs fewer samples. The same ratio is what the simulation's
`SimParams.paired_share` stands for (the share of paired draws whose answers coincide
where the skills agree): see benchmarks/learning.py.

Usage: python benchmarks/paired_seeds.py [--json] [--tasks N] [--samples S]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from learning_local import demo_tasks  # noqa: E402
from skill_effect_local import RULES  # noqa: E402

from skillopt_sleep.demo import DEMO_SETTINGS  # noqa: E402
from trainer.backends.base import paired_seed, seeded_sample  # noqa: E402
from trainer.backends.local import LocalServer, local_roles  # noqa: E402
from trainer.backends.threads import choose_threads  # noqa: E402
from trainer.rollout import Outcome, rollout_messages  # noqa: E402
from trainer.scoring import rule_score  # noqa: E402
from trainer.skill import SkillDoc  # noqa: E402

LABEL = "REAL MODELS: embedded Qwen2.5-Coder-0.5B target (llama.cpp on this machine)."
MODEL = "qwen2.5-coder-0.5b"
TEMPERATURE = 0.7  # the target's default (skillopt_sleep/data/default.yaml)
NEUTRAL = "\nWrite for the people who will read the history later.\n"


def score(task, text: str) -> float:
    """The trainer's score for rule judges: the weighted mean of the judges met."""
    got = [(j.weight, rule_score(j, Outcome(text))) for j in task.judges]
    got = [(w, s) for w, s in got if s is not None]
    return sum(w * s for w, s in got) / sum(w for w, _ in got) if got else 0.0


def answer(target, doc: SkillDoc, task, seed: int, max_tokens: int) -> str:
    with seeded_sample(seed):
        return target.complete(rollout_messages(doc, task), max_tokens=max_tokens).text


def variance(xs: list[float]) -> float:
    return statistics.pvariance(xs) if len(xs) > 1 else 0.0


def measure(server: LocalServer, tasks: list, samples: int, start: str, max_tokens: int) -> dict:
    target = local_roles(server, {"target": {"temperature": TEMPERATURE}}).target
    a = SkillDoc.parse(start)
    edits = {
        "helpful (rules stated)": SkillDoc.parse(start.rstrip() + RULES),
        "neutral (one line)": SkillDoc.parse(start.rstrip() + "\n" + NEUTRAL),
    }
    rows: dict[str, dict] = {}
    t0, calls = time.monotonic(), 0
    base: dict[tuple[int, int], tuple[str, float]] = {}
    for ti, task in enumerate(tasks):
        for k in range(samples):
            text = answer(target, a, task, paired_seed(task.id, k), max_tokens)
            base[ti, k] = (text, score(task, text))
            calls += 1
    for name, b in edits.items():
        paired, indep, same = [], [], 0
        for ti, task in enumerate(tasks):
            for k in range(samples):
                a_text, a_score = base[ti, k]
                p_text = answer(target, b, task, paired_seed(task.id, k), max_tokens)
                i_text = answer(target, b, task, paired_seed(task.id, f"{k}:own"), max_tokens)
                calls += 2
                same += p_text == a_text
                paired.append(score(task, p_text) - a_score)
                indep.append(score(task, i_text) - a_score)
        vp, vi = variance(paired), variance(indep)
        rows[name] = {
            "pairs": len(paired),
            "identical_answers": round(same / len(paired), 3),
            "effect_paired": round(statistics.fmean(paired), 3),
            "effect_independent": round(statistics.fmean(indep), 3),
            "var_paired": round(vp, 4),
            "var_independent": round(vi, 4),
            "variance_ratio": round(vp / vi, 3) if vi else None,
        }
    return {"edits": rows, "calls": calls, "seconds": round(time.monotonic() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tasks", type=int, default=16)
    ap.add_argument("--samples", type=int, default=4)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="skillopt-paired-seeds-") as tmp:
        tasks, start, _config = demo_tasks(Path(tmp))
        tasks = tasks[: args.tasks]
        max_tokens = int(DEMO_SETTINGS["trainer.max_answer_tokens"])
        threads = choose_threads(lambda n: LocalServer.for_model(MODEL, threads=n))
        load = os.getloadavg()[0]
        with LocalServer.for_model(MODEL, threads=threads.threads, parallel=1) as server:
            out = measure(server, tasks, args.samples, start, max_tokens)
        out.update(
            label=LABEL,
            tasks=len(tasks),
            samples=args.samples,
            threads=threads.threads,
            load_1min=[load, os.getloadavg()[0]],
        )
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(LABEL)
    print(
        f"{out['tasks']} rule-judged commit tasks x {out['samples']} samples, temperature "
        f"{TEMPERATURE}, {max_tokens} answer tokens; {out['calls']} calls in {out['seconds']} s"
    )
    for name, r in out["edits"].items():
        print(
            f"  {name}: identical answers {r['identical_answers']:.0%}; effect paired "
            f"{r['effect_paired']:+.3f}, independent {r['effect_independent']:+.3f}; var(x) "
            f"paired {r['var_paired']:.4f} vs independent {r['var_independent']:.4f}"
            f" = ratio {r['variance_ratio']}"
        )


if __name__ == "__main__":
    main()
