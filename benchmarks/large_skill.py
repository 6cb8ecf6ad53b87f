"""A large SKILL.md: anchor finding, and one training step on the simulated world.

    .venv/bin/python benchmarks/large_skill.py
    .venv/bin/python benchmarks/large_skill.py --sizes 2 --json

For each skill shape and size (MB): the time ``reflect.anchor_choices`` takes (best of
three), and one whole step of ``optimize`` (1 epoch, 1 step, the length cap lifted) on a
SIMULATION world: its wall time, the time spent inside the simulated models' calls, and
the longest stretch of the trainer's own work between two stop checks (time inside calls
left out) — how long a SIGTERM waits at worst with an instant model.

Shapes: ``rules`` — generated rule lines from a small vocabulary under a heading every 40
lines (the shape the work was tuned on); ``source`` — this repository's Python files, one
section each, repeated as needed (held out: not looked at while tuning).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trainer import TrainSettings, optimize  # noqa: E402
from trainer.backends.base import Roles  # noqa: E402
from trainer.reflect import anchor_choices  # noqa: E402
from trainer.sim import SimWorld  # noqa: E402
from trainer.skill import SkillDoc  # noqa: E402

HEAD = "---\nname: big\ndescription: A large skill.\n---\n"


def rules(size: int) -> str:
    rng = random.Random(1)
    words = ["alpha", "beta", "gamma", "delta", "run", "test", "lint", "commit", "docs",
             "cache", "parser", "build", "deploy"]  # fmt: skip
    lines: list[str] = []
    i = n = 0
    while n < size:
        if i % 40 == 0:
            line = f"## Section {i // 40}"
        else:
            line = f"- {' '.join(rng.choices(words, k=8))} {i}"
        lines.append(line)
        n += len(line) + 1
        i += 1
    return HEAD + "\n".join(lines) + "\n"


def source(size: int) -> str:
    files = sorted(p for p in ROOT.glob("*/**/*.py") if ".venv" not in p.parts)
    parts: list[str] = []
    n = copy = 0
    while n < size:
        copy += 1
        for p in files:
            part = f"## {p.relative_to(ROOT)} (copy {copy})\n\n{p.read_text()}\n"
            parts.append(part)
            n += len(part)
            if n >= size:
                break
    return HEAD + "".join(parts)


class Probe(threading.Event):
    """A stop event that is never set and notes when the trainer checks it."""

    def __init__(self, in_calls: list[float]) -> None:
        super().__init__()
        self.in_calls = in_calls
        self.checks: list[tuple[float, float]] = []

    def is_set(self) -> bool:
        self.checks.append((time.perf_counter(), self.in_calls[0]))
        return False


class Timed:
    """A backend that adds the time spent in its calls to a shared total."""

    def __init__(self, inner: Any, in_calls: list[float]) -> None:
        self.inner, self.in_calls = inner, in_calls
        self.identity, self.concurrency = inner.identity, inner.concurrency
        self.simulation = True

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self.inner.complete(messages, **kwargs)
        finally:
            self.in_calls[0] += time.perf_counter() - t0


def step(skill: SkillDoc) -> dict[str, float]:
    world = SimWorld.generate(0)
    in_calls = [0.0]
    sim = world.roles()
    roles = Roles(*(Timed(getattr(sim, r), in_calls) for r in ("optimizer", "target", "judge")))
    probe = Probe(in_calls)
    settings = TrainSettings(
        epochs=1, steps_per_epoch=1, max_samples=2, test_samples=1, max_skill_tokens=10**9
    )
    t0 = time.perf_counter()
    probe.checks.append((t0, 0.0))
    optimize(skill, world.tasks, roles, settings=settings, stop=probe)
    probe.checks.append((time.perf_counter(), in_calls[0]))
    own = [(t1 - t) - (c1 - c) for (t, c), (t1, c1) in itertools.pairwise(probe.checks)]
    return {
        "step_s": round(probe.checks[-1][0] - t0, 2),
        "in_model_calls_s": round(in_calls[0], 2),
        "stop_checks": len(probe.checks) - 2,
        "longest_unchecked_s": round(max(own), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="2,10", help="skill sizes in MB, comma-separated")
    ap.add_argument("--no-step", action="store_true", help="time anchor_choices only")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    result: dict[str, Any] = {
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "figures": "SIMULATION (the step's models are simulated)",
    }
    for shape, make in (("rules", rules), ("source", source)):
        for mb in (float(x) for x in args.sizes.split(",")):
            doc = SkillDoc.parse(make(int(mb * 1e6)))
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                anchor_choices(doc)
                times.append(time.perf_counter() - t0)
            row: dict[str, Any] = {
                "lines": doc.body.count("\n"),
                "tokens": doc.n_tokens,
                "anchor_choices_ms": round(min(times) * 1000, 1),
            }
            if not args.no_step:
                row |= step(doc)
            result[f"{shape}_{mb:g}MB"] = row
            if not args.json:
                print(f"{shape} {mb:g} MB: {row}", flush=True)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"load average {result['load_average_1m']} on {result['cpus']} CPUs; SIMULATION")


if __name__ == "__main__":
    main()
