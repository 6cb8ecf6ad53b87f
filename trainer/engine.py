"""The optimization loop: epochs × steps of rollout → score → reflect → bounded edits →
gate. State lives in `_Run`; model access in `Caller`; the target is reached only through
a `RolloutAdapter` (a chat call, or an agent CLI in a workspace); verdicts in
`gate.decide`; the returned `RunResult` is plain data. The same code runs against real
models, agent harnesses and the simulation — nothing here knows which it is talking to.

Statistical hygiene, in one place:
  * every comparison draws fresh samples for both sides (sample ids carry the comparison
    number), so an incumbent's lucky selection score is never reused;
  * alpha is split over the planned steps (online Bonferroni): each step adds alpha/N to a
    pot; a comparison spends the whole pot; a step without a comparison (no failures, no
    applicable edit, screened out on train) leaves its share for the next one; an accepted
    edit passes the alpha it used on (the "online fallback" procedure of Tian & Ramdas,
    2021). Shares are fixed before the val data of a comparison is seen and the shares
    spent on non-improving edits sum to <= alpha, so the chance that a run accepts any
    non-improving edit stays <= alpha;
  * candidates are screened on the train minibatch that motivated them (cheap, and train
    data never decides acceptance), so gate calls and alpha go to likely winners;
  * the test split is touched once, after training, to report the lift.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from trainer.backends.base import Roles
from trainer.budget import Budget, BudgetExhausted
from trainer.cache import Cache, Ledger, MemoryCache, MemoryLedger
from trainer.calls import Caller, Request, RolloutJob
from trainer.edits import Edit, apply_edits, edit_set_hash
from trainer.gate import Decision, decide, decide_in_looks
from trainer.lr import StepBudget
from trainer.reflect import (
    Example,
    build_messages,
    proposal_max_tokens,
    proposal_schema,
    read_proposals,
)
from trainer.result import RunResult, TestLift
from trainer.rollout import ChatRollout, RolloutAdapter
from trainer.scoring import Firewall, Rollout, Scored, Scorer
from trainer.settings import TrainSettings
from trainer.skill import SkillDoc
from trainer.state import FIREWALL, RunState
from trainer.tasks import Task

log = logging.getLogger("trainer")

GateFn = Callable[..., Decision]


def optimize(
    skill: SkillDoc | str,
    tasks: list[Task],
    roles: Roles,
    *,
    settings: TrainSettings | None = None,
    cache: Cache | None = None,
    ledger: Ledger | None = None,
    gate: GateFn = decide,
    rollout: RolloutAdapter | None = None,
) -> RunResult:
    """Train `skill` on `tasks` (train/val/test splits) and return the RunResult.

    `rollout` runs the target; by default one chat call to `roles.target` per attempt.
    `gate` defaults to `trainer.gate.decide`; another verdict function with the same
    signature can be passed for ablations (benchmarks/learning.py compares the naive rule).

    Rejected edits are written to `ledger` only when the run ends, so a killed run that is
    resumed with the same cache sees the same ledger and ends identically.
    """
    doc = SkillDoc.parse(skill) if isinstance(skill, str) else skill
    run = _Run(
        doc,
        tasks,
        roles,
        settings or TrainSettings(),
        cache if cache is not None else MemoryCache(),
        ledger if ledger is not None else MemoryLedger(),
        gate,
        rollout or ChatRollout(roles.target),
    )
    return run.run()


class _Run:
    def __init__(
        self,
        start: SkillDoc,
        tasks: list[Task],
        roles: Roles,
        settings: TrainSettings,
        cache: Cache,
        ledger: Ledger,
        gate: GateFn,
        rollout: RolloutAdapter,
    ) -> None:
        self.s = settings
        self.gate = gate
        self.rollout = rollout
        self.alpha_pot = 0.0  # alpha available to the next comparison
        self.start = self.incumbent = start
        self.split = {
            sp: sorted((t for t in tasks if t.split == sp), key=lambda t: t.id)
            for sp in ("train", "val", "test")
        }
        self.state = RunState(ledger)
        self.budget = Budget(settings.budget)
        self.caller = Caller(roles, cache, self.budget)
        self.counters: Counter[str] = Counter()
        self.scorer = Scorer(self.caller, self.counters)  # type: ignore[arg-type]
        self.firewall = Firewall(j for t in tasks for j in t.judges)
        self.simulation = any(
            getattr(b, "simulation", False) for b in (roles.optimizer, rollout, roles.judge)
        )

    # -- model work --------------------------------------------------------------------
    def _rollouts(self, jobs: list[tuple[SkillDoc, Task, str]]) -> list[tuple[Scored, str] | None]:
        """Roll out and score; per job (score, answer), or None if it could not be had."""
        outcomes = self.caller.rollouts(
            self.rollout,
            [RolloutJob(doc, t, sample) for doc, t, sample in jobs],
            self.s.max_answer_tokens,
        )
        live = [(i, o) for i, o in enumerate(outcomes) if o is not None]
        self.counters.update(f"rollouts_{o.where}" for _i, o in live)
        scored = self.scorer.score(
            [Rollout(jobs[i][1], jobs[i][2], jobs[i][0].hash, o) for i, o in live]
        )
        out: list[tuple[Scored, str] | None] = [None] * len(jobs)
        for (i, o), sc in zip(live, scored, strict=True):
            out[i] = (sc, o.answer) if sc is not None else None
        self.counters["skipped_samples"] += sum(x is None for x in out)
        return out

    def _evaluate(
        self, docs: list[SkillDoc], tasks: list[Task], tag: str, samples: range
    ) -> list[list[list[float]]]:
        """Per doc, per task, the scores of the given fresh samples (failed ones left out)."""
        index = [(d, t, j) for d in range(len(docs)) for t in range(len(tasks)) for j in samples]
        scored = self._rollouts([(docs[d], tasks[t], f"{tag}:{j}") for d, t, j in index])
        per: list[list[list[float]]] = [[[] for _ in tasks] for _ in docs]
        for (d, t, _j), sc in zip(index, scored, strict=True):
            if sc is not None:
                per[d][t].append(sc[0].score)
        return per

    def _paired(self, a: list[list[float]], b: list[list[float]]):
        """Keep the tasks scored on both sides (an endpoint failure is not a zero)."""
        keep = [i for i in range(len(a)) if a[i] and b[i]]
        return [a[i] for i in keep], [b[i] for i in keep], len(a) - len(keep)

    # -- one step ----------------------------------------------------------------------
    def _reject(self, edits: list[Edit], reason: str, where: str, *args: Any) -> None:
        self.state.reject(edits, reason, where, self.incumbent.hash, *args)

    def _aggregate(self, edits: list[Edit], lr: StepBudget, where: str):
        kept: list[Edit] = []
        seen: set[str] = set()
        for e in edits:
            if e.hash in seen:
                continue
            seen.add(e.hash)
            if self.state.known(e.hash):
                self.counters["ledger_skipped"] += 1
                continue
            why = self.firewall.violation(f"{e.text}\n{e.section}")
            if why:
                self.counters["firewall_rejected"] += 1
                self._reject([e], f"{FIREWALL}: {why}", where)
                continue
            kept.append(e)
        chosen, dropped = lr.select(kept)
        self.counters["lr_dropped"] += len(dropped)
        cand, applied, failed = apply_edits(self.incumbent, chosen)
        for e, reason in failed:
            self.counters["edit_failed"] += 1
            self._reject([e], f"not applied: {reason}", where, None, False)
        if applied and cand.n_tokens > self.s.max_skill_tokens:
            self._reject(applied, f"skill would exceed {self.s.max_skill_tokens} tokens", where)
            return self.incumbent, []
        if applied and len(applied) > 1 and self.state.known(edit_set_hash(applied)):
            self.counters["ledger_skipped"] += 1
            return self.incumbent, []
        return cand, applied

    def _step(self, epoch: int, step: int, batch: list[Task]) -> None:
        where = f"epoch {epoch} step {step}"
        rnd = epoch * self.s.steps_per_epoch + step
        jobs = [
            (self.incumbent, t, f"train:{rnd}:{j}")
            for t in batch
            for j in range(self.s.train_samples)
        ]
        scored = self._rollouts(jobs)
        fails: list[tuple[float, str, Example]] = []
        wins: list[tuple[str, Example]] = []
        for (_doc, t, sample), got in zip(jobs, scored, strict=True):
            if got is None:
                continue
            sc, answer = got
            ex = Example(t.prompt, answer, tuple(dict.fromkeys(sc.feedback)))
            if sc.score < 1.0:
                fails.append((sc.score, f"{t.id}:{sample}", ex))
            else:
                wins.append((f"{t.id}:{sample}", ex))
        if not fails:
            self.counters["steps_without_failures"] += 1
            return
        fails = _one_per_task(sorted(fails, key=lambda x: (x[0], x[1])))
        wins = _one_per_task(sorted(wins, key=lambda x: x[0]))
        lr = self.s.lr.at(epoch, self.s.epochs)
        messages = build_messages(
            self.incumbent,
            [f[2] for f in fails[: self.s.max_failures_shown]],
            [w[1] for w in wins[: self.s.max_successes_shown]],
            self.state.tried(),
            max_edits=lr.max_edits,
            max_changed_tokens=lr.max_changed_tokens,
            max_prompt_tokens=self.s.max_prompt_tokens,
        )
        req = Request(
            messages,
            self.incumbent.hash,
            f"reflect:{rnd}",
            0,
            json_schema=proposal_schema(lr.max_edits, lr.max_changed_tokens, self.incumbent),
            max_tokens=proposal_max_tokens(lr.max_edits, lr.max_changed_tokens),
        )
        comp = self.caller.run("optimizer", [req])[0]
        if comp is None:
            return
        edits, recovered = read_proposals(comp.text)
        if edits is None:
            self.counters["unparseable_proposals"] += 1
            log.info("%s: unparseable proposal: %.200r", where, comp.text)
            return
        self.counters["repaired_proposals" if recovered else "parsed_proposals"] += 1
        self.counters["proposed_edits"] += len(edits)
        candidate, applied = self._aggregate(edits, lr, where)
        if not applied:
            return
        if self.s.screen and not self._screen(candidate, jobs, scored):
            self.counters["screened_out"] += 1
            self._reject(applied, "screen: no gain on the train minibatch", where, None, False)
            return
        decision = self._gate(candidate, rnd)
        evidence = decision.to_dict()
        self.counters["comparisons"] += 1
        if decision.verdict == "accept":
            self.state.accept(
                {
                    "where": where,
                    "edits": [e.to_dict() for e in applied],
                    "edit_hash": edit_set_hash(applied),
                    "evidence": evidence,
                    "from_hash": self.incumbent.hash,
                    "to_hash": candidate.hash,
                    "diff": self.incumbent.diff(candidate),
                }
            )
            self.incumbent = candidate
            log.info("%s: accepted %d edit(s): %s", where, len(applied), decision.reason)
        else:
            self._reject(applied, f"gate: {decision.verdict} ({decision.reason})", where, evidence)
            log.info("%s: %s", where, decision.reason)

    def _screen(self, candidate: SkillDoc, jobs: list, scored: list) -> bool:
        """Cheap pre-check on the train minibatch (never val): does the candidate do better
        on the very tasks that motivated it? Keeps gate calls and alpha for likely winners."""
        mine = self._rollouts([(candidate, t, s) for _d, t, s in jobs])
        pairs = [(c[0].score, i[0].score) for c, i in zip(mine, scored, strict=True) if c and i]
        return bool(pairs) and sum(c - i for c, i in pairs) > 0

    def _gate(self, candidate: SkillDoc, rnd: int) -> Decision:
        """Fresh samples for both sides in looks (gate.decide_in_looks); spends the pot."""
        val, tag = self.split["val"], f"val:{rnd}"

        def draw(samples: range) -> tuple[list[list[float]], list[list[float]]]:
            cand, inc = self._evaluate([candidate, self.incumbent], val, tag, samples)
            return cand, inc

        alpha, self.alpha_pot = self.alpha_pot, 0.0
        looks = decide_in_looks(
            draw,
            step=self.s.samples,
            top=max(self.s.samples, self.s.max_samples),
            alpha=alpha,
            min_effect=self.s.min_effect,
            no_regression=self.s.no_regression,
            verdict=self.gate,
        )
        self.counters["futility_stops"] += looks.futility_stop
        self.counters["dropped_tasks"] += looks.dropped_tasks
        if looks.decision.verdict == "accept":
            self.alpha_pot += alpha  # fallback: a correct rejection passes its alpha on
        return looks.decision

    # -- the run -----------------------------------------------------------------------
    def run(self) -> RunResult:
        stop = self._train()
        self.state.flush()
        test = self._test()
        return RunResult(
            start_skill=self.start,
            best_skill=self.incumbent,
            history=self.state.history,
            rejected=self.state.rejected,
            usage=self.budget.usage.to_dict(),
            counters=dict(sorted(self.counters.items())),
            stop_reason=stop,
            test=test,
            settings=self.s.to_dict(),
            simulation=self.simulation,
        )

    def _train(self) -> str:
        train, val = self.split["train"], self.split["val"]
        if not train or not val:
            return "no train or val tasks"
        alpha = self.s.alpha_per_comparison
        if 2.0 ** -len(val) > alpha:
            return (
                f"underpowered: {len(val)} val tasks cannot reach alpha={alpha:.4g} "
                f"(needs >= {_min_n(alpha)})"
            )
        self.budget.reserve_calls = self._test_calls()  # so the test is never squeezed out
        try:
            for epoch in range(self.s.epochs):
                order = list(train)
                random.Random(f"{self.s.seed}:{epoch}").shuffle(order)
                for step in range(self.s.steps_per_epoch):
                    self.alpha_pot += self.s.alpha_per_comparison
                    start = step * self.s.minibatch
                    batch = [
                        order[(start + i) % len(order)]
                        for i in range(min(self.s.minibatch, len(order)))
                    ]
                    self._step(epoch, step, batch)
        except BudgetExhausted as err:
            return f"budget: {err.kind}"
        finally:
            self.budget.reserve_calls = 0
        return "completed"

    def _test_calls(self) -> int:
        """The held-out test's calls: both skills, every sample, a rollout and one judge
        call per rubric judge each."""
        per_task = [1 + sum(j.kind == "rubric" for j in t.judges) for t in self.split["test"]]
        return 2 * self.s.max_samples * sum(per_task)

    def _test(self) -> TestLift:
        if self.incumbent.hash == self.start.hash:
            return TestLift.unchanged()
        if not self.split["test"]:
            return TestLift.skipped("no test tasks")
        try:
            b, a = self._evaluate(
                [self.incumbent, self.start], self.split["test"], "test", range(self.s.max_samples)
            )
        except BudgetExhausted as err:
            return TestLift.skipped(f"budget {err.kind} ran out")
        best, start, dropped = self._paired(b, a)
        self.counters["dropped_test_tasks"] += dropped
        return TestLift.measure(best, start)


def _one_per_task(rows: list) -> list:
    """Keep the first row per task (rows are keyed "<task id>:<sample>")."""
    seen: set[str] = set()
    out = []
    for row in rows:
        task_id = row[-2].rsplit(":", 3)[0]
        if task_id not in seen:
            seen.add(task_id)
            out.append(row)
    return out


def _min_n(alpha: float) -> int:
    n = 1
    while 2.0**-n > alpha:
        n += 1
    return n
