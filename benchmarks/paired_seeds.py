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
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from demo_tasks import demo_tasks  # noqa: E402
from skill_effect_local import RULES  # noqa: E402

from skillopt_sleep.demo import DEMO_SETTINGS  # noqa: E402
from trainer.backends.local import LocalServer, local_roles  # noqa: E402
from trainer.backends.threads import choose_threads  # noqa: E402
from trainer.budget import Budget  # noqa: E402
from trainer.cache import MemoryCache  # noqa: E402
from trainer.calls import Caller  # noqa: E402
from trainer.measure import Measurer  # noqa: E402
from trainer.rollout import ChatRollout  # noqa: E402
from trainer.skill import SkillDoc  # noqa: E402

LABEL = "REAL MODELS: embedded Qwen2.5-Coder-0.5B target (llama.cpp on this machine)."
MODEL = "qwen2.5-coder-0.5b"
TEMPERATURE = 0.7  # the target's default (skillopt_sleep/data/default.yaml)
NEUTRAL = "\nWrite for the people who will read the history later.\n"


def variance(xs: list[float]) -> float:
    return statistics.pvariance(xs) if len(xs) > 1 else 0.0


def measure(server: LocalServer, tasks: list, samples: int, start: str, max_tokens: int) -> dict:
    """Through the trainer's own rollouts and scoring: sample `k` of a task is drawn with the
    task's paired seed for k, whatever the skill; sample `k:own` with a seed of its own."""
    roles = local_roles(server, {"target": {"temperature": TEMPERATURE}})
    caller = Caller(roles, MemoryCache(), Budget())
    measurer = Measurer(caller, ChatRollout(roles.target), Counter(), max_tokens)
    a = SkillDoc.parse(start)
    edits = {
        "helpful (rules stated)": SkillDoc.parse(start.rstrip() + RULES),
        "neutral (one line)": SkillDoc.parse(start.rstrip() + "\n" + NEUTRAL),
    }
    cells = [(t, k) for t in tasks for k in range(samples)]
    t0 = time.monotonic()
    base = measurer.jobs([(a, t, str(k)) for t, k in cells])
    rows: dict[str, dict] = {}
    for name, b in edits.items():
        paired = measurer.jobs([(b, t, str(k)) for t, k in cells])
        own = measurer.jobs([(b, t, f"{k}:own") for t, k in cells])
        got = [(x, p, o) for x, p, o in zip(base, paired, own, strict=True) if x and p and o]
        xs_paired = [p[0].score - x[0].score for x, p, _ in got]
        xs_own = [o[0].score - x[0].score for x, _, o in got]
        vp, vi = variance(xs_paired), variance(xs_own)
        rows[name] = {
            "pairs": len(got),
            "identical_answers": round(sum(p[1] == x[1] for x, p, _ in got) / len(got), 3),
            "effect_paired": round(statistics.fmean(xs_paired), 3),
            "effect_independent": round(statistics.fmean(xs_own), 3),
            "var_paired": round(vp, 4),
            "var_independent": round(vi, 4),
            "variance_ratio": round(vp / vi, 3) if vi else None,
        }
    calls = caller.budget.usage.calls
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
