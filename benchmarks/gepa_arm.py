"""The GEPA arm: GEPA (`pip install gepa`, its `optimize`) over our rollouts, judges and call
budget, so benchmarks/learning_local.py can run it beside ours on the same tasks, models,
seeds and budget.

GEPA evolves one text component, the skill's body ("skill"; the name and description stay).
`SkillAdapter` is its adapter (`gepa.core.adapter.GEPAAdapter`):

- `evaluate` rolls the target out with the candidate skill on a batch of tasks through our
  `Measurer` — the night's rollout adapter, judges, scoring, cache and `Budget` — a fresh
  sample id per evaluation, and scores each answer as a night does (the judges' weighted
  mean; a call that could not be had scores 0, as GEPA asks for a score per example);
- `make_reflective_dataset` gives, per answer, the task, the answer and what went wrong in
  words: the judge firewall's words with the user's own, what our reflection sees;
- GEPA's reflection model is our optimizer role, called through our `Caller`.

Every call — rollouts, judge calls, reflections — is charged to one `Budget` (our count:
`usage.calls`); GEPA stops when it is spent (a stopper that asks the budget), and a call the
budget refuses mid-iteration ends that iteration (GEPA logs it and stops). The skill GEPA
returns is its best on the val tasks; the benchmark measures it on test as it measures ours.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from gepa import optimize as gepa_optimize
from gepa.core.adapter import EvaluationBatch

from trainer.backends.base import Roles
from trainer.budget import Budget, BudgetExhausted, BudgetLimits
from trainer.cache import Cache, MemoryCache
from trainer.calls import Caller, Request
from trainer.measure import Measurer
from trainer.rollout import ChatRollout, RolloutAdapter
from trainer.skill import SkillDoc
from trainer.tasks import Task

COMPONENT = "skill"
REFLECTION_TOKENS = 1024  # GEPA's reflection rewrites the whole skill body
PASSED = "the answer met every check"


@dataclass(frozen=True)
class Trace:
    """One rollout as GEPA's reflection sees it."""

    task: str
    answer: str
    feedback: str
    score: float


class SkillAdapter:
    """GEPA's adapter over our measurement (see the module docstring)."""

    propose_new_texts = None  # GEPA's own reflective proposer, with our optimizer as its LM

    def __init__(self, start: SkillDoc, measure: Measurer, tag: str = "gepa") -> None:
        self.start = start
        self.measure = measure
        self.tag = tag
        self.evaluations = 0

    def skill(self, candidate: dict[str, str]) -> SkillDoc:
        return replace(self.start, body=candidate[COMPONENT])

    def evaluate(
        self, batch: list[Task], candidate: dict[str, str], capture_traces: bool = False
    ) -> EvaluationBatch[Trace, str]:
        doc = self.skill(candidate)
        sample = f"{self.tag}:{self.evaluations}"  # each evaluation draws fresh answers
        self.evaluations += 1
        got = self.measure.jobs([(doc, task, sample) for task in batch])
        outputs, scores, traces = [], [], []
        for task, row in zip(batch, got, strict=True):
            scored, answer = row if row is not None else (None, "")
            score = scored.score if scored is not None else 0.0
            words = "; ".join(scored.feedback) if scored is not None else "no answer was had"
            outputs.append(answer)
            scores.append(score)
            traces.append(Trace(task.prompt, answer, words or PASSED, score))
        return EvaluationBatch(outputs, scores, traces if capture_traces else None)

    def make_reflective_dataset(
        self,
        candidate: dict[str, str],
        eval_batch: EvaluationBatch[Trace, str],
        components_to_update: list[str],
    ) -> dict[str, list[dict[str, Any]]]:
        records = [
            {"Inputs": {"task": t.task}, "Generated Outputs": t.answer, "Feedback": t.feedback}
            for t in eval_batch.trajectories or []
        ]
        return {name: records for name in components_to_update}


class _Reflector:
    """GEPA's reflection LM: our optimizer role through our Caller (cached, budgeted)."""

    def __init__(self, caller: Caller, tag: str) -> None:
        self.caller = caller
        self.tag = tag
        self.calls = 0

    def __call__(self, prompt: str | list[dict[str, Any]]) -> str:
        messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
        request = Request(
            messages, "", f"{self.tag}-reflect:{self.calls}", 0, max_tokens=REFLECTION_TOKENS
        )
        self.calls += 1
        (completion,) = self.caller.run("optimizer", [request])
        return completion.text if completion is not None else ""


class _Quiet:
    """GEPA's logger, kept quiet (the benchmark prints its own figures)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def log(self, message: str) -> None:
        self.lines.append(message)


@dataclass
class GepaRun:
    best: SkillDoc
    usage: dict[str, Any]  # our Budget's usage: calls (all roles), by role, tokens
    candidates: int  # skills in GEPA's pool, the start included
    reflections: int
    log: list[str]
    stop: str  # "budget" | "completed"


def run_gepa(
    start: SkillDoc | str,
    tasks: list[Task],
    roles: Roles,
    *,
    max_calls: int,
    seed: int = 0,
    minibatch: int = 3,
    max_answer_tokens: int = 512,
    cache: Cache | None = None,
    rollout: RolloutAdapter | None = None,
) -> GepaRun:
    """GEPA on the train tasks (its reflective minibatches) and the val tasks (its Pareto
    front), spending at most `max_calls` of our calls."""
    doc = SkillDoc.parse(start) if isinstance(start, str) else start
    budget = Budget(BudgetLimits(max_calls=max_calls))
    caller = Caller(roles, cache if cache is not None else MemoryCache(), budget)
    measure = Measurer(caller, rollout or ChatRollout(roles.target), Counter(), max_answer_tokens)
    adapter = SkillAdapter(doc, measure)
    reflector = _Reflector(caller, adapter.tag)
    logger = _Quiet()

    def spent(_state: Any) -> bool:
        try:
            budget.check()
        except BudgetExhausted:
            return True
        return False

    train = [t for t in tasks if t.split == "train"]
    val = [t for t in tasks if t.split == "val"]
    try:
        result = gepa_optimize(
            seed_candidate={COMPONENT: doc.body},
            trainset=train,
            valset=val,
            adapter=adapter,
            reflection_lm=reflector,
            reflection_minibatch_size=minibatch,
            stop_callbacks=spent,
            logger=logger,
            seed=seed,
            raise_on_exception=False,
        )
    except BudgetExhausted:  # the start's val evaluation did not fit the budget
        return GepaRun(doc, budget.usage.to_dict(), 1, reflector.calls, logger.lines, "budget")
    best = adapter.skill(result.best_candidate)
    stop = "budget" if spent(None) else "completed"
    return GepaRun(
        best, budget.usage.to_dict(), len(result.candidates), reflector.calls, logger.lines, stop
    )
