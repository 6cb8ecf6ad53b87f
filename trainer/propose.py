"""Where candidates come from: one step's minibatch, rolled out, reflected on, screened.

The engine decides what a candidate is worth (the gate); this module makes them. A step
rolls the incumbent out on its train minibatch and tries three kinds of edit, each only
when the ones before it come to nothing (none to make, already tried, nothing applicable,
no gain on the minibatch):

1. the user's corrections (`trainer.corrections`): the rules the train tasks' verified
   judges quote, in the user's words, one edit, no optimizer call. On a skill without a
   worked example it goes with an answer the user accepted for one of the step's failed
   train tasks (the pair the target gains most with on the minibatch), so one comparison
   carries all that the user said and showed: each of the two, gated apart, costs a
   comparison of its own, and on the embedded models the night's budget ran out before
   the second one was decided (benchmarks/results/learning_local.json, runs 4 and 5).
   When no pair fits the step's learning rate or passes the screen, the corrections go
   alone. They are tried until the gate has judged them (then the ledger knows them) or
   the screen has turned them down twice;
2. the optimizer's reflection — one rule against one problem of the step's failed answers
   (`trainer.reflect`; the problem asked about least often in this run, then the one most
   answers failed);
3. a worked example (`trainer.demos`) for the worst failed tasks: the answer the user
   accepted for the task first (no call); the optimizer's own answer only when no accepted
   one is left, and only when it passes every judge of its task *and* the task has a content
   check (an answer that passes its rules but names nothing of the diff is no example of a
   commit message for it). Of the examples, the one the target gains most with on the
   minibatch is the candidate.

A skill without an example tries the example before the rule: it costs a short prompt
and a one-answer reply where reflection costs the failures and a JSON proposal (on the
embedded 1.5B ~10 s against ~100 s), and small targets follow an example best. No kind is
preferred otherwise, and every edit records where it came from (`Edit.origin`). Every edit
passes the ledger, the judge firewall (the user's own words pass it), the learning rate and
the length cap, and the candidate must do better on the minibatch that motivated it before
the gate spends val calls and alpha on it.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import replace
from typing import Any, NamedTuple

from trainer import corrections, demos
from trainer.calls import Caller, Request
from trainer.checks import CONTENT_KIND
from trainer.edits import Edit, apply_edits, edit_set_hash, normalized
from trainer.lr import StepBudget
from trainer.measure import Job, Measurer
from trainer.reflect import (
    RULE_TOKENS,
    Example,
    copies_prompt,
    failure_clusters,
    proposal_max_tokens,
    proposal_schema,
    question_messages,
    read_proposals,
    split_examples,
)
from trainer.scoring import USER_SAID, Firewall, Scored
from trainer.settings import TrainSettings
from trainer.skill import SkillDoc
from trainer.state import FIREWALL, LENGTH_CAP, RunState
from trainer.tasks import Task

log = logging.getLogger("trainer")

Scores = list[tuple[Scored, str] | None]  # per job: (score, answer), or None


class Screened(NamedTuple):
    """A candidate that passed the screen (or met no screen), with what it gained there."""

    candidate: SkillDoc
    edits: list[Edit]
    gain: float


class Proposer:
    def __init__(
        self,
        settings: TrainSettings,
        caller: Caller,
        measure: Measurer,
        state: RunState,
        firewall: Firewall,
        counters: Counter[str],
        train: list[Task] | None = None,
    ) -> None:
        self.s = settings
        self.train = train or []  # the run's train tasks: the corrections' only source
        self.caller = caller
        self.measure = measure
        self.state = state
        self.firewall = firewall
        self.counters = counters
        self.asked: Counter[str] = Counter()  # problems reflected on in this run
        self.screened_out: Counter[str] = Counter()  # corrections edits turned down, by hash

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

        def by_rule() -> Screened | None:
            edits = self._rule(incumbent, fails, wins, lr, rnd, where)
            return self._screened(incumbent, edits, lr, where, jobs, scored) if edits else None

        def by_example() -> Screened | None:
            found = [
                self._screened(incumbent, [edit], lr, where, jobs, scored, own=task.id)
                for task, edit in self._examples(incumbent, rows, rnd, where)
            ]
            return self._best(incumbent, [f for f in found if f is not None], where)

        def with_accepted(edit: Edit) -> Screened | None:
            """The corrections with one of the user's accepted answers as the skill's first
            worked example: the pair that gains most on the minibatch, or None."""
            if demos.examples(incumbent):
                return None
            found = [
                self._screened(incumbent, [edit, example], lr, where, jobs, scored, own=task.id)
                for task, example in self._accepted(incumbent, [r[0] for r in _worst(rows)], rnd)
                if not lr.select([edit, example])[1]  # both fit the step's learning rate
            ]
            best = self._best(incumbent, [f for f in found if f is not None], where)
            if best is not None:
                self.counters["corrections_with_example"] += 1
            return best

        def by_corrections() -> Screened | None:
            edit = corrections.edit(incumbent, self.train, lr.max_changed_tokens)
            if edit is None or self.state.known(edit.hash) or self.screened_out[edit.hash] >= 2:
                return None
            self.counters["correction_candidates"] += 1
            found = with_accepted(edit)
            if found is None:
                found = self._screened(incumbent, [edit], lr, where, jobs, scored)
            if found is None:
                self.screened_out[edit.hash] += 1
            return found

        makers = [by_rule, by_example]
        if not demos.examples(incumbent):
            makers.reverse()  # a skill's first example comes first: cheap, and it works best
        for make in [by_corrections, *makers]:
            found = make()
            if found is not None:
                return found.candidate, found.edits
        return None

    def _rule(
        self,
        incumbent: SkillDoc,
        fails: list[Example],
        wins: list[Example],
        lr: StepBudget,
        rnd: int,
        where: str,
    ) -> list[Edit] | None:
        """The optimizer's reflection on one problem: a rule that would fix it. Among the
        problems asked about least, one the user put in words comes first: their correction
        names what to fix, where a grade short of full (the rubric) only says that it fell short."""
        clusters = failure_clusters(fails)
        words, failed = min(
            clusters, key=lambda c: (self.asked[c[0]], USER_SAID not in c[0], -len(c[1]), c[0])
        )
        self.asked[words] += 1
        messages = question_messages(
            incumbent,
            words,
            failed[: self.s.max_failures_shown],
            len(fails),
            wins[: self.s.max_successes_shown],
            self.state.tried(),
            max_prompt_tokens=self.s.max_prompt_tokens,
        )
        rule_tokens = min(lr.max_changed_tokens, RULE_TOKENS)
        req = Request(
            messages,
            incumbent.hash,
            f"reflect:{rnd}",
            0,
            json_schema=proposal_schema(1, rule_tokens, incumbent),
            max_tokens=proposal_max_tokens(1, rule_tokens),
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
        own = [replace(e, origin="reflection") for e in edits if not copies_prompt(e)]
        self.counters["prompt_copies"] += len(edits) - len(own)
        return own or None

    def _examples(
        self, incumbent: SkillDoc, rows: list[tuple[Task, str, Scored, str]], rnd: int, where: str
    ) -> list[tuple[Task, Edit]]:
        """Worked examples for the worst failures an answer alone can fix (up to
        `demos.TRIES` tasks): the answers the user accepted for them, each kept if it passes
        every judge of its task; when none is left to try, the optimizer's answers to them
        under what went wrong, kept only if they pass every judge of a task that has a
        content check."""
        worst = _worst(rows)
        accepted = self._accepted(incumbent, [r[0] for r in worst], rnd)
        if accepted:
            return accepted
        content = [r for r in worst if any(j.kind == CONTENT_KIND for j in r[0].judges)]
        self.counters["examples_without_content_check"] += len(worst) - len(content)
        return self._answered(incumbent, content[: demos.TRIES], rnd, where)

    def _accepted(
        self, incumbent: SkillDoc, tasks: list[Task], rnd: int
    ) -> list[tuple[Task, Edit]]:
        """The user's accepted answers to these tasks as examples (no call), up to
        `demos.TRIES`, leaving out those tried before and those already in the skill."""
        have = {normalized(x) for x in demos.examples(incumbent)}
        out: list[tuple[Task, Edit]] = []
        for task in tasks:
            answer = demos.clean(str(task.meta.get("accepted") or ""))
            if not answer or normalized(answer) in have:
                continue
            edit = demos.example_edit(answer, accepted=True)
            if self.state.known(edit.hash):
                continue
            have.add(normalized(answer))
            # the user accepted it: its rule judges must hold (they were verified on it), the
            # rubric, which grades against this very answer, is not asked
            rules = replace(task, judges=tuple(j for j in task.judges if j.kind != "rubric"))
            check = self.measure.check(rules, answer, incumbent.hash, f"example:{rnd}")
            if check is not None and check.pass_all is not False and check.score >= 1.0:
                self.counters["accepted_examples"] += 1
                out.append((task, edit))
            if len(out) >= demos.TRIES:
                break
        return out

    def _answered(
        self, incumbent: SkillDoc, worst: list[tuple[Task, str, Scored, str]], rnd: int, where: str
    ) -> list[tuple[Task, Edit]]:
        """The optimizer's answers to the worst failed tasks, kept if they pass every judge
        of their task (its content check among them)."""
        reqs = [
            Request(
                demos.answer_messages(task, tuple(sc.feedback)),
                incumbent.hash,
                f"example:{rnd}:{task.id}",
                0,
                max_tokens=2 * self.s.max_answer_tokens,
            )
            for task, _sample, sc, _answer in worst
        ]
        out: list[tuple[Task, Edit]] = []
        seen: set[str] = set()
        comps = self.caller.run("optimizer", reqs) if reqs else []
        for (task, *_), comp in zip(worst, comps, strict=True):
            if comp is None or comp.overflow:
                continue
            answer = demos.clean(comp.text)
            self.counters["example_answers"] += 1
            key = normalized(answer)
            if not key or key in seen:
                continue  # nothing, or the same answer to another task: one candidate is enough
            seen.add(key)
            check = self.measure.check(task, answer, incumbent.hash, f"example:{rnd}")
            if check is not None and check.score >= 1.0:
                self.counters["worked_examples"] += 1
                out.append((task, demos.example_edit(answer)))
            else:
                log.info("%s: the optimizer's answer fails its task too: %.200r", where, answer)
        return out

    def _best(self, incumbent: SkillDoc, found: list[Screened], where: str) -> Screened | None:
        """The screened example the target did best with; the others are set aside (not
        banned: they were not measured against the val set)."""
        if not found:
            return None
        best = max(found, key=lambda f: f.gain)  # the first (worst-failed task) on a tie
        for f in found:
            if f is not best:
                reason = "screen: another worked example gained more on the train minibatch"
                self._reject(incumbent, f.edits, reason, where)
        return best

    def _screened(
        self,
        incumbent: SkillDoc,
        edits: list[Edit],
        lr: StepBudget,
        where: str,
        jobs: list[Job],
        scored: Scores,
        own: str | None = None,
    ) -> Screened | None:
        """The candidate, its applied edits and its gain on the train minibatch, or None."""
        candidate, applied = self._aggregate(incumbent, edits, lr, where)
        if not applied:
            return None
        if not self.s.screen:
            return Screened(candidate, applied, 0.0)
        gain = self._screen(candidate, jobs, scored, own)
        if gain is None:
            self.counters["screened_out"] += 1
            self._reject(incumbent, applied, "screen: no gain on the train minibatch", where)
            return None
        return Screened(candidate, applied, gain)

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
        # on a large skill, each edit and the count take a while: a stop is honoured between
        cand, applied, failed = apply_edits(incumbent, chosen, self.caller.checkpoint)
        for e, reason in failed:
            self.counters["edit_failed"] += 1
            self._reject(incumbent, [e], f"not applied: {reason}", where)
        self.caller.checkpoint()
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

    def _screen(
        self, candidate: SkillDoc, jobs: list[Job], scored: Scores, own: str | None
    ) -> float | None:
        """Cheap pre-check on the train minibatch (never val): does the candidate do better
        on the very tasks that motivated it? Keeps gate calls and alpha for likely winners.
        Returns the gain, or None. The task a worked example answers (`own`) is left out:
        there the example is the answer, so repeating it is neither a copy nor evidence."""
        keep = [i for i, (_d, t, _s) in enumerate(jobs) if t.id != own]
        mine = self.measure.jobs([(candidate, jobs[i][1], jobs[i][2]) for i in keep])
        pairs = [
            (c[0].score, got[0].score)
            for c, got in zip(mine, (scored[i] for i in keep), strict=True)
            if c and got
        ]
        gain = sum(c - i for c, i in pairs)
        return gain if pairs and gain > 0 else None


def _worst(rows: list[tuple[Task, str, Scored, str]]) -> list[tuple[Task, str, Scored, str]]:
    """The failed tasks an answer alone can fix, worst first, each by its worst sample."""
    fixable = sorted(
        (r for r in rows if r[2].score < 1.0 and demos.can_demonstrate(r[0])),
        key=lambda r: (r[2].score, r[0].id, r[1]),
    )
    first: dict[str, tuple[Task, str, Scored, str]] = {}
    for r in fixable:
        first.setdefault(r[0].id, r)  # a task's worst sample
    return list(first.values())
