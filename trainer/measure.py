"""Measurement: skills rolled out on tasks and scored, shaped the way the loop asks.

The loop asks three shapes of the same thing: one score per job (a train minibatch), the
scores of fresh samples per skill and task (the held-out test, in mean score and in
pass-all), and the score of each sweep per skill and val task (the gate). They differ in
how a failed sample shows: a job gives None, an evaluation leaves the sample out, a sweep
holds NaN — a call that could not be had is no evidence either way, while an attempt that
overflowed the target's context failed its task (score 0, pass-all false), and so did an
answer that merely repeats one of the skill's worked examples (`trainer.demos`) or is no
answer at all (`trainer.nonanswer`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

from trainer import demos
from trainer.calls import Caller, RolloutJob
from trainer.result import TestLift
from trainer.rollout import Outcome, RolloutAdapter
from trainer.scoring import Rollout, Scored, Scorer
from trainer.skill import SkillDoc
from trainer.tasks import Task

OVERFLOW_WORDS = "the skill and the task did not fit the model's context"

Job = tuple[SkillDoc, Task, str]  # (skill, task, sample id)


class Measurer:
    def __init__(
        self,
        caller: Caller,
        rollout: RolloutAdapter,
        counters: Counter[str],
        max_answer_tokens: int,
    ) -> None:
        self.caller = caller
        self.rollout = rollout
        self.counters = counters
        self.max_answer_tokens = max_answer_tokens
        self.scorer = Scorer(caller, counters)  # type: ignore[arg-type]
        self._examples: dict[str, list[str]] = {}  # skill hash -> its worked examples

    def jobs(self, jobs: list[Job]) -> list[tuple[Scored, str] | None]:
        """Per job (score, answer), or None if it could not be had."""
        outcomes = self.caller.rollouts(
            self.rollout,
            [RolloutJob(doc, t, sample) for doc, t, sample in jobs],
            self.max_answer_tokens,
        )
        live = [(i, o) for i, o in enumerate(outcomes) if o is not None and not o.overflow]
        self.counters.update(f"rollouts_{o.where}" for _i, o in live)
        scored = self.scorer.score(
            [Rollout(jobs[i][1], jobs[i][2], jobs[i][0].hash, o) for i, o in live]
        )
        out: list[tuple[Scored, str] | None] = [None] * len(jobs)
        for (i, o), sc in zip(live, scored, strict=True):
            if sc is not None and demos.copies_example(o.answer, self._examples_of(jobs[i][0])):
                sc = Scored.failed(demos.COPIED_WORDS, jobs[i][1], o)
                self.counters["copied_examples"] += 1
            out[i] = (sc, o.answer) if sc is not None else None
        for i, o in enumerate(outcomes):
            if o is not None and o.overflow:
                out[i] = (Scored.failed(OVERFLOW_WORDS, jobs[i][1], o), "")
                self.counters["context_overflows"] += 1
        self.counters["skipped_samples"] += sum(x is None for x in out)
        return out

    def check(self, task: Task, answer: str, skill_hash: str, sample: str) -> Scored | None:
        """The score a written answer (not a rollout: the optimizer's own answer) gets on
        `task`, as a chat answer."""
        return self.scorer.score([Rollout(task, sample, skill_hash, Outcome(answer))])[0]

    def _examples_of(self, doc: SkillDoc) -> list[str]:
        if doc.hash not in self._examples:
            self._examples[doc.hash] = demos.examples(doc)
        return self._examples[doc.hash]

    def grid(
        self, docs: list[SkillDoc], tasks: list[Task], tag: str, ks: range
    ) -> list[list[list[Scored | None]]]:
        """Per doc, per task, the score of each sweep in `ks` (None: no score)."""
        index = [(d, t, k) for d in range(len(docs)) for t in range(len(tasks)) for k in ks]
        got = self.jobs([(docs[d], tasks[t], f"{tag}:{k}") for d, t, k in index])
        per: list[list[list[Scored | None]]] = [[[None] * len(ks) for _ in tasks] for _ in docs]
        for (d, t, k), sc in zip(index, got, strict=True):
            if sc is not None:
                per[d][t][k - ks.start] = sc[0]
        return per

    def sweeps(
        self, docs: list[SkillDoc], tasks: list[Task], tag: str, ks: range
    ) -> list[list[list[float]]]:
        """Per doc, per task, the score of each sweep in `ks` (NaN: no score)."""
        grid = self.grid(docs, tasks, tag, ks)
        return [
            [[math.nan if sc is None else sc.score for sc in row] for row in per_doc]
            for per_doc in grid
        ]

    def lift(
        self, best: SkillDoc, start: SkillDoc, tasks: list[Task], tag: str, samples: range
    ) -> TestLift:
        """The held-out lift of `best` over `start` on the tasks both were scored on (an
        endpoint failure is not a zero), in mean score and in pass-all."""
        if not tasks:
            return TestLift.skipped("no test tasks")
        # The calls a budget refuses (the deadline came early) are missing samples: the
        # tasks both skills were scored on still measure the lift, on fewer tasks.
        with self.caller.partial() as refused:
            b, a = self.grid([best, start], tasks, tag, samples)
        keep = [i for i in range(len(tasks)) if _scored(a[i]) and _scored(b[i])]
        self.counters["dropped_test_tasks"] += len(tasks) - len(keep)
        if refused and not keep:
            return TestLift.skipped(f"budget {refused[0].kind} ran out")
        lift = TestLift.measure(
            [[s.score for s in _scored(b[i])] for i in keep],
            [[s.score for s in _scored(a[i])] for i in keep],
            [_passes(b[i]) for i in keep],
            [_passes(a[i]) for i in keep],
        )
        if refused:
            cut = f"{len(keep)} of {len(tasks)} test tasks: budget {refused[0].kind} ran out"
            lift = replace(lift, method=f"{lift.method} ({cut})")
        return lift


def _scored(row: list[Scored | None]) -> list[Scored]:
    return [s for s in row if s is not None]


def _passes(row: list[Scored | None]) -> list[float]:
    """A task's samples as pass-all 1/0, leaving out those no rule judge spoke about."""
    return [float(s.pass_all) for s in row if s is not None and s.pass_all is not None]


def test_calls(tasks: list[Task], samples: int) -> int:
    """The held-out test's calls: both skills, every sample, a rollout and one judge call
    per rubric judge each (reserved in the budget, so the test is never squeezed out)."""
    per_task = [1 + sum(j.kind == "rubric" for j in t.judges) for t in tasks]
    return 2 * samples * sum(per_task)
