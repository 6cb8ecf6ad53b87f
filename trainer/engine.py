"""The optimization loop: epochs × steps of rollout → score → reflect → bounded edits →
gate. State lives in `_Run`; model access in `Caller`; scores in `Measurer`; the target
is reached only through a `RolloutAdapter` (a chat call, or an agent CLI in a workspace);
verdicts in `gate.decide`; the returned `RunResult` is plain data. The same code runs against real
models, agent harnesses and the simulation — nothing here knows which it is talking to.

Why sharing incumbent samples, building on promising candidates, splitting alpha over steps,
continuing pending candidates across nights and keeping the incumbent's stream keep each
comparison's level: docs/gate.md, "Statistical hygiene of a run".
"""

from __future__ import annotations

import logging
import random
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

from trainer.backends.base import Roles
from trainer.budget import Budget, BudgetExhausted
from trainer.cache import Cache, Ledger, MemoryCache, MemoryLedger
from trainer.calls import Caller
from trainer.edits import Edit, apply_edits, edit_set_hash
from trainer.gate import Decision, Evidence, decide, sequential
from trainer.ledger import LedgerRecord
from trainer.measure import Measurer, test_calls
from trainer.propose import Proposer
from trainer.result import AcceptedEdits, RunResult, TestLift
from trainer.resume import discarded, judges_digest, stale, val_digest
from trainer.rollout import ChatRollout, RolloutAdapter
from trainer.scoring import Firewall
from trainer.settings import TrainSettings
from trainer.skill import SkillDoc
from trainer.state import LENGTH_CAP, RunState
from trainer.stream import Stream
from trainer.tasks import Task

log = logging.getLogger("trainer")

GateFn = Callable[..., Decision]

# Nights a candidate may stay pending. An edit still undecided after this many nights of
# sweeps has an effect too small to matter at this val set's size; it is dropped (not
# banned: it may be proposed again), so samples go where they can still decide.
PENDING_NIGHTS = 3


class _Base(NamedTuple):
    """An undecided candidate the next step builds on (see the module docstring)."""

    candidate: SkillDoc
    edits: list[Edit]
    where: str


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
    stop: threading.Event | None = None,
) -> RunResult:
    """Train `skill` on `tasks` (train/val/test splits) and return the RunResult.

    `rollout` runs the target; by default one chat call to `roles.target` per attempt.
    `stop`: once set, the run raises `trainer.calls.Stopped` at its next call or checkpoint
    (within a fraction of a second, whatever the skill's size); a rerun with the same cache
    replays what was done.
    `gate` defaults to `trainer.gate.decide`; another verdict function with the same
    signature can be passed for ablations (benchmarks/learning.py compares the naive rule).

    Rejected and pending edits are written to `ledger` only when the run ends, so a killed
    run that is resumed with the same cache sees the same ledger and ends identically.
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
        stop,
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
        stop: threading.Event | None = None,
    ) -> None:
        self.s = settings
        self.gate = gate
        self.alpha_pot = 0.0  # alpha available to the next comparison
        self.start = self.incumbent = start
        self.epoch = 0  # accepted steps so far: names the incumbent's val stream
        self.stream = Stream(f"{settings.run_id}:0")  # the incumbent's val sweeps
        self.beaten: dict[str, Any] | None = None  # the start's stream, once accepted away
        self.base: _Base | None = None  # the undecided candidate the next step builds on
        self.rebase: list[tuple[list[Edit], str]] = []  # promising edits of replaced incumbents
        self.split = {
            sp: sorted((t for t in tasks if t.split == sp), key=lambda t: t.id)
            for sp in ("train", "val", "test")
        }
        self.state = RunState(ledger)
        self.val_digest = val_digest(self.split["val"])
        self.judges_digest = judges_digest(self.split["val"])
        # the budget that cut a comparison short: raised again once its samples are kept
        self.cut: BudgetExhausted | None = None
        self.budget = Budget(settings.budget)
        self.caller = Caller(roles, cache, self.budget, stop)
        self.counters: Counter[str] = Counter()
        self.measure = Measurer(self.caller, rollout, self.counters, settings.max_answer_tokens)
        accepted = [str(t.meta.get("accepted") or "") for t in self.split["train"]]
        firewall = Firewall((j for t in tasks for j in t.judges), allowed=filter(None, accepted))
        self.proposer = Proposer(
            settings, self.caller, self.measure, self.state, firewall, self.counters,
            self.split["train"],
        )  # fmt: skip
        self.simulation = any(
            getattr(b, "simulation", False) for b in (roles.optimizer, rollout, roles.judge)
        )

    # -- one step ----------------------------------------------------------------------
    def _reject(self, edits: list[Edit], reason: str, where: str, *args: Any) -> None:
        self.state.reject(edits, reason, where, self.incumbent.hash, *args)

    def _step(self, epoch: int, step: int, batch: list[Task]) -> None:
        """Propose, screen and compare a candidate, on top of the previous step's promising
        undecided one if there is one; a step with nothing new to compare gives its gate time
        to an undecided candidate instead (see _idle)."""
        where = f"epoch {epoch} step {step}"
        base = self.base
        proposed = self.proposer.propose(
            base.candidate if base else self.incumbent, epoch, step, batch, where
        )
        if proposed is None:
            self._idle(where)
        elif base is None:
            self._new_comparison(*proposed, where)
        else:
            self.counters["built_on_pending"] += 1
            candidate, applied = proposed
            self.base = None
            self._new_comparison(
                candidate, base.edits + applied, f"{where} (on top of {base.where})", built=True
            )

    def _new_comparison(
        self, candidate: SkillDoc, applied: list[Edit], where: str, built: bool = False
    ) -> None:
        """Compare a candidate not seen before: it gets the pot of alpha. One that is left
        undecided but promising is built on by the next step, unless it was built on one."""
        self.counters["comparisons"] += 1
        alpha, self.alpha_pot = self.alpha_pot, 0.0
        evidence = Evidence.empty(len(self.split["val"]))
        decision, at = self._compare(candidate, evidence, alpha, self.stream.floor)
        if decision.verdict == "accept":
            self.alpha_pot += alpha  # fallback: an accepted edit passes its alpha on
        elif decision.verdict == "pending" and not built and evidence.promising(self.s.min_effect):
            self.base = _Base(candidate, applied, where)  # _settle raises the floor past it
        self._settle(candidate, applied, where, decision, evidence, [self.s.run_id], at)

    def _idle(self, where: str) -> None:
        """Give a step's gate time to the undecided candidate closest to a decision: first
        one still pending against this incumbent (its e-process goes on, at its alpha), else
        one that was pending against an incumbent accepted away tonight (re-applied to the
        new one, a new comparison). Spends samples where they can still decide."""
        near = [
            (more, rec.edit_hash, rec)
            for rec in self.state.pending()
            if rec.comparison["from_hash"] == self.incumbent.hash
            and (more := _more_sweeps(rec)) is not None
            and more <= self.s.max_samples
        ]
        if near:
            rec = min(near, key=lambda x: x[:2])[2]
            c = rec.comparison
            self.counters["pending_continued"] += 1
            candidate, applied, _failed = apply_edits(
                self.incumbent, [Edit.from_dict(e) for e in rec.edits]
            )
            evidence = Evidence.from_dict(c["scores"])
            decision, at = self._compare(candidate, evidence, float(c["alpha"]), self._unused(c))
            self._settle(candidate, applied, rec.where, decision, evidence, c["runs"], at)
            return
        while self.rebase:
            edits, origin = self.rebase.pop(0)
            candidate, applied, failed = apply_edits(self.incumbent, edits)
            if failed or not applied or candidate.n_tokens > self.s.max_skill_tokens:
                continue
            if self.state.known(edit_set_hash(applied)):
                continue
            self.counters["rebased"] += 1
            self._new_comparison(candidate, applied, f"{where} (re-based from {origin})")
            return

    def _unused(self, comparison: dict[str, Any]) -> int:
        """The first incumbent sweep a pending candidate may be paired with: past the ones
        it has been paired with, and not below the stream's floor."""
        origin, at = comparison.get("stream_at") or (None, 0)
        return max(int(at) if origin == self.stream.origin else 0, self.stream.floor)

    def _compare(
        self, candidate: SkillDoc, evidence: Evidence, alpha: float, start: int = 0
    ) -> tuple[Decision, int]:
        """Up to `max_samples` more sweeps of the candidate (its own fresh samples) against
        the incumbent's sweeps `start`, `start + 1`, … of this stream, deciding after every
        `samples` sweeps. Returns the decision and the first incumbent sweep left unused."""
        tag = f"val:{self.s.run_id}:{self.epoch}"
        look = max(1, self.s.samples)
        before = evidence.sweeps

        def draw(look_no: int) -> tuple[list[list[float]], list[list[float]]]:
            lo = start + look_no * look
            ks = range(lo, min(lo + look, start + self.s.max_samples))
            sweeps = self.stream.sweeps
            fresh = range(len(sweeps), max(len(sweeps), ks.stop))
            if self.epoch == 0 and self.stream.carried:  # kept sweeps paired: not paid for
                reused = min(ks.stop, self.stream.carried)
                self.counters["incumbent_sweeps_carried"] = max(
                    reused, self.counters["incumbent_sweeps_carried"]
                )
            docs = [candidate, self.incumbent] if len(fresh) else [candidate]
            per = self.measure.sweeps(docs, self.split["val"], tag, ks)
            for k in fresh:  # the incumbent's new sweeps join this epoch's stream
                sweeps.append([scores[k - ks.start] for scores in per[1]])
            self.counters["incumbent_sweeps"] += len(fresh)
            self.counters["candidate_sweeps"] += len(ks)
            inc = [[sweeps[k][i] for k in ks] for i in range(len(self.split["val"]))]
            return per[0], inc

        def judged(looks: int) -> Decision:
            return sequential(
                draw,
                evidence,
                looks=looks,
                alpha=alpha,
                min_effect=self.s.min_effect,
                no_regression=self.s.no_regression,
                verdict=self.gate,
            )

        try:
            decision = judged(-(-max(1, self.s.max_samples) // look))
        except BudgetExhausted as err:
            if evidence.sweeps == before:
                raise  # nothing drawn tonight: a kept record stays as it was
            # the sweeps drawn whole are kept pending (trainer.resume); _settle raises again
            self.cut = err
            decision = judged(0)  # the verdict on them, drawing nothing more
        self.counters[f"gate_{decision.verdict}"] += 1
        return decision, start + evidence.sweeps - before

    def _settle(
        self,
        candidate: SkillDoc,
        applied: list[Edit],
        where: str,
        decision: Decision,
        evidence: Evidence,
        runs: list[str],
        at: int,
    ) -> None:
        """Record a comparison's verdict; an accepted candidate becomes the incumbent.
        `runs`: the run ids whose samples the evidence holds (this one last); `at`: the
        first incumbent sweep of this stream the evidence has not used."""
        edit_hash = edit_set_hash(applied)
        if self.base and self.base.candidate.hash == candidate.hash:
            # the base's samples (its own comparison, or an idle step's continuation) decide
            # whether it is built on: none of their incumbent sweeps is paired again
            self.stream.raise_floor(at)
            if decision.verdict == "reject":
                self.base = None
        if decision.verdict == "accept":
            self.state.accept(
                AcceptedEdits(
                    where=where,
                    edits=tuple(applied),
                    edit_hash=edit_hash,
                    evidence=decision.to_dict(),
                    from_hash=self.incumbent.hash,
                    to_hash=candidate.hash,
                    diff=self.incumbent.diff(candidate),
                    runs=tuple(runs),
                )
            )
            self.state.forget(edit_hash)  # if it was pending from an earlier night
            for rec in self.state.pending():
                c = rec.comparison
                if c["from_hash"] == self.incumbent.hash and c.get("scores"):
                    if (c["evidence"].get("effect") or 0.0) > 0:
                        edits = [Edit.from_dict(e) for e in rec.edits]
                        self.rebase.append((edits, rec.where))
                    self.state.forget(rec.edit_hash)
                    self.counters["pending_superseded"] += 1
            if self.incumbent.hash == self.start.hash and self.beaten is None:
                self.beaten = self.stream.record(self.s.run_id, beaten=True)
            self.incumbent = candidate
            self.epoch += 1
            # its samples become the new incumbent's stream: biased upward by its selection,
            # which can only make later candidates' tests stricter (see the module docstring)
            self.stream = Stream.of_accepted(evidence, f"{self.s.run_id}:{self.epoch}")
            self.base = None
            log.info("%s: accepted %d edit(s): %s", where, len(applied), decision.reason)
        elif decision.verdict == "reject":
            self._reject(applied, f"gate: reject ({decision.reason})", where, decision.to_dict())
            log.info("%s: %s", where, decision.reason)
        else:
            self.state.hold(
                applied,
                where,
                f"gate: pending ({decision.reason})",
                {
                    "from_hash": self.incumbent.hash,
                    "to_hash": candidate.hash,
                    "val_digest": self.val_digest,
                    "judges_digest": self.judges_digest,
                    "cut_by": self.cut.kind if self.cut else None,
                    "alpha": decision.alpha,
                    "runs": runs,
                    "stream_at": [self.stream.origin, at],
                    "evidence": decision.to_dict(),
                    "scores": evidence.to_dict(),
                },
            )
            log.info("%s: %s", where, decision.reason)
        if self.cut is not None:
            raise self.cut

    def _continue_pending(self) -> None:
        """Candidates left pending by earlier runs against this very skill, val set and
        judges get more sweeps first, at the alpha they were given; the others' samples are
        discarded, with the reason (trainer.resume)."""
        carried = []
        for rec in self.state.ledger.pending():
            c = rec.comparison
            if self.s.run_id in c.get("runs", ()):
                continue  # this run's samples are already in its evidence: nothing fresh
            if len(c.get("runs", ())) >= PENDING_NIGHTS:
                self.state.drop(rec, f"dropped undecided after {PENDING_NIGHTS} nights")
                self.counters["pending_dropped"] += 1
            elif not c.get("scores"):  # held by the length cap: no evidence to keep
                if c.get("from_hash") != self.incumbent.hash or self._fits(rec):
                    self.state.forget(rec.edit_hash)
                    self.counters["pending_superseded"] += 1
            elif why := stale(c, self.incumbent.hash, self.val_digest, self.judges_digest):
                self.state.drop(rec, discarded(why))
                self.counters["pending_discarded"] += 1
            else:
                carried.append(rec)
        carried.sort(key=lambda r: (-float(r.comparison["evidence"]["e_value"]), r.edit_hash))
        for rec in carried:
            c = rec.comparison
            if c["from_hash"] != self.incumbent.hash:  # an earlier one was accepted
                self.state.forget(rec.edit_hash)
                self.counters["pending_superseded"] += 1
                continue
            candidate, applied, failed = apply_edits(
                self.incumbent, [Edit.from_dict(e) for e in rec.edits]
            )
            if failed or candidate.hash != c["to_hash"]:
                self.state.drop(rec, discarded("its edits no longer make the same candidate"))
                self.counters["pending_discarded"] += 1
                continue
            self.counters["pending_continued"] += 1
            evidence = Evidence.from_dict(c["scores"])
            alpha = float(c["alpha"])
            decision, at = self._compare(candidate, evidence, alpha, self._unused(c))
            runs = [*c["runs"], self.s.run_id]
            self._settle(candidate, applied, rec.where, decision, evidence, runs, at)

    def _fits(self, rec: LedgerRecord) -> bool:
        """A length-capped edit that fits this run's cap: no longer held, it may be compared
        (it was never evidence against the edit)."""
        if not rec.reason.startswith(LENGTH_CAP):
            return False
        cand, _applied, failed = apply_edits(self.incumbent, [Edit.from_dict(e) for e in rec.edits])
        return not failed and cand.n_tokens <= self.s.max_skill_tokens

    # -- the incumbent's stream across runs -------------------------------------------
    def _stream_key(self, doc: SkillDoc) -> str:
        """The skill on these val tasks as they are judged: sweeps scored by other judges
        are no sample of tonight's incumbent."""
        return f"{doc.hash}:{self.val_digest}:{self.judges_digest}"

    def _carry_stream(self) -> None:
        """Start from the val sweeps an earlier run kept for this skill and val set."""
        rec = self.state.ledger.stream(self._stream_key(self.start))
        kept = Stream.carried_from(rec, len(self.split["val"]), self.s.run_id)
        if kept is not None:
            self.stream = kept

    def _keep_streams(self) -> None:
        """Keep the final incumbent's sweeps for the next run; mark the start's beaten."""
        if self.beaten is not None:
            self.state.ledger.keep_stream(self._stream_key(self.start), self.beaten)
        if self.stream.sweeps:
            self.state.ledger.keep_stream(
                self._stream_key(self.incumbent), self.stream.record(self.s.run_id)
            )

    # -- the run -----------------------------------------------------------------------
    def run(self) -> RunResult:
        stop = self._train()
        self.counters["pending_superseded"] += self.state.flush(self.incumbent.hash)
        self._keep_streams()
        test = self._test()
        return RunResult(
            start_skill=self.start,
            best_skill=self.incumbent,
            history=self.state.history,
            rejected=self.state.rejected,
            pending=self.state.pending(),
            usage=self.budget.usage.snapshot(),
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
        if (size := self.start.n_tokens) > self.s.max_skill_tokens:
            # candidates must fit the cap: edits of a skill over it would be paid for and held
            return f"{LENGTH_CAP}: the skill is {size} tokens, over {self.s.max_skill_tokens}"
        self.caller.checkpoint()
        self.budget.reserve_calls = test_calls(self.split["test"], self.s.test_samples)
        try:
            self._carry_stream()
            self._continue_pending()
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
            self.counters["calls_to_learn"] = self.budget.usage.calls
        return "completed"

    def _test(self) -> TestLift:
        if self.incumbent.hash == self.start.hash:
            return TestLift.unchanged()
        tag = f"test:{self.s.run_id}"
        return self.measure.lift(
            self.incumbent, self.start, self.split["test"], tag, range(self.s.test_samples)
        )


def _more_sweeps(rec: LedgerRecord) -> float | None:
    """The sweeps a pending candidate's gate said it needs to decide, if it said."""
    return (rec.comparison.get("evidence") or {}).get("more_sweeps")
