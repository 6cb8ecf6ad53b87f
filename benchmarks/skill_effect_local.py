"""REAL-MODEL benchmark: what a skill does to the embedded models on rule-judged tasks.

The demo's commit-message tasks (mined from the bundled sample sessions, reviewed to their
rule judges: under 12 words, no ## headings, no diff lines) are answered by each embedded
model with three system skills: none, the user's skill with the rules stated, and the same
with one worked example. Temperature 0, one answer per task, the demo's answer-token limit.
Prints passes (every judge met) per model and skill, and per model the median call time,
the decode rate and the threads the server ran with, with the machine's load.

Usage: python benchmarks/skill_effect_local.py [--json] [--tasks N]
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

from demo_tasks import demo_tasks  # noqa: E402

from skillopt_sleep.demo import DEMO_SETTINGS  # noqa: E402
from trainer.backends.local import LocalServer, local_roles  # noqa: E402
from trainer.backends.threads import choose_threads  # noqa: E402
from trainer.rollout import Outcome, rollout_messages  # noqa: E402
from trainer.scoring import rule_score  # noqa: E402
from trainer.skill import SkillDoc  # noqa: E402

LABEL = "REAL MODELS: embedded Qwen2.5-Coder (llama.cpp on this machine), no simulation."
MODELS = ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
RULES = (
    "\n- Reply with the commit message only: one line, no heading, no explanation.\n"
    "- Keep it under 12 words.\n- Do not repeat the diff.\n"
)
EXAMPLE = "\n## Example\n\nfix: clamp tide heights below chart datum\n"


def skills(start: str) -> dict[str, SkillDoc]:
    doc = SkillDoc.parse(start)
    rules = SkillDoc.parse(start.rstrip() + RULES)
    return {
        "no skill": SkillDoc(name=doc.name, description="", body=""),
        "rules": rules,
        "rules + worked example": SkillDoc.parse(rules.render().rstrip() + "\n" + EXAMPLE),
    }


def measure(server: LocalServer, docs: dict[str, SkillDoc], tasks: list, max_tokens: int):
    target = local_roles(server, {"target": {"temperature": 0.0}}).target
    passes: dict[str, int] = {}
    seconds: list[float] = []
    out_tokens = 0
    for name, doc in docs.items():
        ok = 0
        for task in tasks:
            t0 = time.monotonic()
            comp = target.complete(rollout_messages(doc, task), max_tokens=max_tokens)
            seconds.append(time.monotonic() - t0)
            out_tokens += comp.output_tokens
            ok += all(rule_score(j, Outcome(comp.text)) == 1.0 for j in task.judges)
        passes[name] = ok
    return {
        "passes": passes,
        "n_tasks": len(tasks),
        "median_call_s": round(statistics.median(seconds), 2),
        "calls_per_min": round(60 * len(seconds) / sum(seconds), 1),
        "output_tok_per_s": round(out_tokens / sum(seconds), 1),  # includes prompt time
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tasks", type=int, default=12)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="skillopt-skill-effect-") as tmp:
        tasks, start, _config = demo_tasks(Path(tmp))
        tasks = [t for t in tasks if t.split != "train"][: args.tasks]
        docs = skills(start)
        max_tokens = int(DEMO_SETTINGS["trainer.max_answer_tokens"])
        rows = {}
        for model in MODELS:
            threads = choose_threads(lambda n, m=model: LocalServer.for_model(m, threads=n))
            load = os.getloadavg()[0]
            with LocalServer.for_model(model, threads=threads.threads, parallel=1) as server:
                rows[model] = measure(server, docs, tasks, max_tokens)
            rows[model].update(threads=threads.threads, load_1min=[load, os.getloadavg()[0]])
    if args.json:
        print(json.dumps({"label": LABEL, "results": rows}, indent=2))
        return
    print(LABEL)
    print(f"{len(tasks)} rule-judged commit tasks, temperature 0, {max_tokens} answer tokens")
    for model, r in rows.items():
        cells = ", ".join(f"{k}: {v}/{r['n_tasks']}" for k, v in r["passes"].items())
        print(f"  {model}: {cells}")
        print(
            f"    {r['threads']} thread(s), median call {r['median_call_s']} s, "
            f"{r['calls_per_min']} calls/min, {r['output_tok_per_s']} output tok/s; "
            f"load {r['load_1min'][0]:.1f} -> {r['load_1min'][1]:.1f}"
        )


if __name__ == "__main__":
    main()
