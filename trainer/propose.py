"""Where candidates come from: one step's minibatch, rolled out, reflected on, screened.

The engine decides what a candidate is worth (the gate); this module makes them. A step
rolls the incumbent out on its train minibatch and asks the optimizer for two kinds of
edit, the second only when the first comes to nothing (unparseable, nothing applicable, no
gain on the minibatch): rules that fix the failures (reflection), and a worked example
(`trainer.demos`: its own answer to the worst failed task, kept only if it passes that
task's judges). A skill without an example tries one first: it costs a short prompt and a
one-answer reply where reflection costs the whole failure report and a JSON proposal (on
the embedded 1.5B ~10 s against ~100 s), and small targets follow an example best. Either way
the edits pass the ledger, the judge firewall, the learning rate and the length cap, and
the candidate must do better on the minibatch that motivated it before the gate spends val
calls and alpha on it.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from trainer import demos
from trainer.calls import Caller, Request
from trainer.edits import Edit, apply_edits, edit_set_hash
from trainer.lr import StepBudget
from trainer.measure import Job, Measurer
from trainer.reflect import (
    Example,
    build_messages,
    proposal_max_tokens,
    proposal_schema,
    read_proposals,
    split_examples,
)
from trainer.scoring import Firewall, Scored
from trainer.settings import TrainSettings
from trainer.skill import SkillDoc
from trainer.state import FIREWALL, LENGTH_CAP, RunState
from trainer.tasks import Task

log = logging.getLogger("trainer")

Scores = list[tuple[Scored, str] | None]  # per job: (score, answer), or None


class Proposer:
    def __init__(
        self,
        settings: TrainSettings,
        caller: Caller,
        measure: Measurer,
        state: RunState,
        firewall: Firewall,
        counters: Counter[str],
    ) -> None:
        self.s = settings
        self.caller = caller
        self.measure = measure
        self.state = state
        self.firewall = firewall
        self.counters = counters

    def propose(
        self, incumbent: SkillDoc, epoch: int, step: int, batch: list[Task], where: str
    ) -> tuple[SkillDoc, list[Edit]] | None:
        """The step's screened candidate and its edits, or None."""
        rnd = epoch * self.s.steps_per_epoch + step
        jobs = [
            (incumbent, t, f"train:{self.s.run_id}:{rnd}:{j}")
            for t in batch
            for j in range(self.s.train_samples)
        ]
        scored = self.measure.jobs(jobs)
        rows = [(t, sample, *got) for (_d, t, sample), got in zip(jobs, scored, strict=True) if got]
        fails, wins = split_examples(rows)
        if not fails:
            self.counters["steps_without_failures"] += 1
            return None
        lr = self.s.lr.at(epoch, self.s.epochs)
        makers = [
            lambda: self._rules(incumbent, fails, wins, lr, rnd, where),
            lambda: self._example(incumbent, rows, rnd, where),
        ]
        if not demos.examples(incumbent):
            makers.reverse()  # a skill's first example comes first: cheap, and it works best
        for make in makers:
            edits = make()
            found = self._screened(incumbent, edits, lr, where, jobs, scored) if edits else None
            if found is not None:
                return found
        return None

    def _rules(
        self,
        incumbent: SkillDoc,
        fails: list[Example],
        wins: list[Example],
        lr: StepBudget,
        rnd: int,
        where: str,
    ) -> list[Edit] | None:
        """The optimizer's reflection: rules that would fix the failures."""
        messages = build_messages(
            incumbent,
            fails[: self.s.max_failures_shown],
            wins[: self.s.max_successes_shown],
            self.state.tried(),
            max_edits=lr.max_edits,
            max_changed_tokens=lr.max_changed_tokens,
            max_prompt_tokens=self.s.max_prompt_tokens,
        )
        req = Request(
            messages,
            incumbent.hash,
            f"reflect:{rnd}",
            0,
            json_schema=proposal_schema(lr.max_edits, lr.max_changed_tokens, incumbent),
            max_tokens=proposal_max_tokens(lr.max_edits, lr.max_changed_tokens),
        )
        comp = self.caller.run("optimizer", [req])[0]
        if comp is None:
            return None
        if comp.overflow:
            self.counters["reflection_overflows"] += 1
            return None
        edits, recovered = read_proposals(comp.text)
        if edits is None:
            self.counters["unparseable_proposals"] += 1
            log.info("%s: unparseable proposal: %.200r", where, comp.text)
            return None
        self.counters["repaired_proposals" if recovered else "parsed_proposals"] += 1
        self.counters["proposed_edits"] += len(edits)
        return edits

    def _example(
        self, incumbent: SkillDoc, rows: list[tuple[Task, str, Scored, str]], rnd: int, where: str
    ) -> list[Edit] | None:
        """A worked example for the worst failure an answer alone can fix: the optimizer's
        answer to it under what went wrong; None unless it passes every judge of its task."""
        fixable = [r for r in rows if r[2].score < 1.0 and demos.can_demonstrate(r[0])]
        if not fixable:
            return None
        task, _sample, sc, _answer = min(fixable, key=lambda r: (r[2].score, r[0].id, r[1]))
        req = Request(
            demos.answer_messages(task, tuple(sc.feedback)),
            incumbent.hash,
            f"example:{rnd}:{task.id}",
            0,
            max_tokens=2 * self.s.max_answer_tokens,
        )
        comp = self.caller.run("optimizer", [req])[0]
        if comp is None or comp.overflow:
            return None
        answer = demos.clean(comp.text)
        self.counters["example_answers"] += 1
        check = self.measure.check(task, answer, incumbent.hash, f"example:{rnd}")
        if answer and check is not None and check.score >= 1.0:
            self.counters["worked_examples"] += 1
            return [demos.example_edit(answer)]
        log.info("%s: the optimizer's answer fails its task too: %.200r", where, answer)
        return None

    def _screened(
        self,
        incumbent: SkillDoc,
        edits: list[Edit],
        lr: StepBudget,
        where: str,
        jobs: list[Job],
        scored: Scores,
    ) -> tuple[SkillDoc, list[Edit]] | None:
        candidate, applied = self._aggregate(incumbent, edits, lr, where)
        if not applied:
            return None
        if self.s.screen and not self._screen(candidate, jobs, scored):
            self.counters["screened_out"] += 1
            self._reject(incumbent, applied, "screen: no gain on the train minibatch", where)
            return None
        return candidate, applied

    def _reject(
        self, incumbent: SkillDoc, edits: list[Edit], reason: str, where: str, ledger: bool = False
    ) -> None:
        self.state.reject(edits, reason, where, incumbent.hash, None, ledger)

    def _aggregate(
        self, incumbent: SkillDoc, edits: list[Edit], lr: StepBudget, where: str
    ) -> tuple[SkillDoc, list[Edit]]:
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
                self._reject(incumbent, [e], f"{FIREWALL}: {why}", where, ledger=True)
                continue
            kept.append(e)
        chosen, dropped = lr.select(kept)
        self.counters["lr_dropped"] += len(dropped)
        cand, applied, failed = apply_edits(incumbent, chosen)
        for e, reason in failed:
            self.counters["edit_failed"] += 1
            self._reject(incumbent, [e], f"not applied: {reason}", where)
        if applied and cand.n_tokens > self.s.max_skill_tokens:
            # not evidence against the edit: it may fit once the skill has changed
            self.counters["length_capped"] += 1
            detail: dict[str, Any] = {"from_hash": incumbent.hash, "to_hash": cand.hash}
            reason = f"{LENGTH_CAP}: the skill would exceed {self.s.max_skill_tokens} tokens"
            self.state.hold(applied, where, reason, detail)
            return incumbent, []
        if applied and len(applied) > 1 and self.state.known(edit_set_hash(applied)):
            self.counters["ledger_skipped"] += 1
            return incumbent, []
        return cand, applied

    def _screen(self, candidate: SkillDoc, jobs: list[Job], scored: Scores) -> bool:
        """Cheap pre-check on the train minibatch (never val): does the candidate do better
        on the very tasks that motivated it? Keeps gate calls and alpha for likely winners."""
        mine = self.measure.jobs([(candidate, t, s) for _d, t, s in jobs])
        pairs = [(c[0].score, i[0].score) for c, i in zip(mine, scored, strict=True) if c and i]
        return bool(pairs) and sum(c - i for c, i in pairs) > 0
