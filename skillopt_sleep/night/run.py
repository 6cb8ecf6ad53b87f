"""One night: ingest → mine → plan → train each skill → held-out test → promote → report.

Every phase is a checkpointed step in the store (``night_steps``). A night that is killed
and started again resumes the same night: finished steps are skipped, an unfinished
training run is replayed from the call cache (no model call is paid twice; the trainer's
decisions are seeded), and promotion is idempotent per night. So the resumed night ends
with the same skills and report as an uninterrupted one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import sqlite_utils

from skillopt_sleep import files, promotion
from skillopt_sleep.health.endpoints import cost_warning, failure_line, unpriced
from skillopt_sleep.mining import mine
from skillopt_sleep.night.dry import dry_run_night
from skillopt_sleep.night.model import Job, NightOutcome, Plan, Promotion, TrainedSkill
from skillopt_sleep.night.plan import plan_night
from skillopt_sleep.night.progress import CallMeter, duration
from skillopt_sleep.night.roles import GuardedRollout, config_of, default_roles, guard, where
from skillopt_sleep.night.settings import NightSettings
from skillopt_sleep.night.sizing import eta_seconds, judge_calls, size_plan
from skillopt_sleep.night.store import Checkpoints, SqliteCache, SqliteLedger, now_iso
from skillopt_sleep.night.summary import build_summary, usage_total, verdict_of
from skillopt_sleep.promotion.dirs import SkillPathError
from skillopt_sleep.promotion.versions import PromotionError
from skillopt_sleep.replay import cli_backend, routing, with_clis
from skillopt_sleep.replay.build import preflight
from skillopt_sleep.report import write_reports
from skillopt_sleep.running import lock
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.settings.logs import ingest_logs
from skillopt_sleep.store import StoreError, integrity_problems, open_store
from trainer import TrainSettings, optimize
from trainer.backends.base import (
    InfraError,
    Roles,
    describe_roles,
)
from trainer.backends.factory import check_roles, describe_config
from trainer.budget import BudgetLimits
from trainer.calls import Stopped  # the night asked to stop (SIGTERM): work is checkpointed
from trainer.rollout import RolloutAdapter
from trainer.sizing import Sizing, sized
from trainer.tasks import Task

log = logging.getLogger("skillopt_sleep.night")

RESUME_WINDOW = timedelta(hours=20)  # an unfinished night older than this is abandoned
Progress = Callable[[str], None]
RolesFactory = Callable[[Mapping[str, Any], list[Task]], contextlib.AbstractContextManager[Roles]]


def run_night(
    config: Mapping[str, Any],
    *,
    stop: threading.Event | None = None,
    deadline: datetime | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
    roles_factory: RolesFactory = default_roles,
) -> NightOutcome:
    """Run (or resume) tonight's night under the state directory's lock.

    Raises ``lock.LockedError`` when another night or daemon holds the lock.
    """
    state = config_mod.state_dir(config)
    say = progress or (lambda msg: log.info("%s", msg))
    settings = NightSettings.from_config(config, deadline=deadline)
    if dry_run:
        return dry_run_night(config, settings, say)
    if roles_factory is default_roles:  # what would fail after ingest and mining: now
        check_roles(config["models"], os.environ)
        preflight(config)
    with lock.hold(state, "night"):
        db = open_store(state)
        try:
            if damage := integrity_problems(db.conn, limit=1):  # a night would write into it
                raise StoreError(
                    f"the store is damaged ({damage[0]}); see `skillopt-sleep doctor` and "
                    "docs/cli.md, 'Errors'",
                    "database_corrupt",
                )
            night = _Night(db, config, settings, stop or threading.Event(), say, roles_factory)
            return night.run()
        finally:
            db.close()


class _Night:
    def __init__(
        self,
        db: sqlite_utils.Database,
        config: Mapping[str, Any],
        settings: NightSettings,
        stop: threading.Event,
        say: Progress,
        roles_factory: RolesFactory,
    ) -> None:
        self.db, self.config, self.settings, self.stop, self.say = db, config, settings, stop, say
        self.roles_factory = roles_factory
        self.model_failure: str | None = None  # the night's first failed model call
        self._failure_lock = threading.Lock()
        self.meter = CallMeter(0, say)  # replaced with the plan's count when roles start
        self.deadline = settings.deadline  # epoch seconds
        self.id = self._start_or_resume()
        self.cp = Checkpoints(db, self.id)
        self.dir = config_mod.state_dir(config) / "nights" / self.id

    def _start_or_resume(self) -> str:
        row = self.db.execute(
            "SELECT id, started_at FROM nights WHERE status IN ('running', 'stopped') "
            "AND NOT dry_run ORDER BY started_at DESC LIMIT 1"
        ).fetchone()
        now = datetime.now(UTC)
        if row and now - datetime.fromisoformat(row[1].replace("Z", "+00:00")) < RESUME_WINDOW:
            self.say(f"resuming night {row[0]}")
            self._set_status(row[0], "running")
            return row[0]
        if row:
            self._set_status(row[0], "abandoned")
        night_id = base = now.strftime("%Y-%m-%dT%H-%M-%SZ")
        suffix = 1
        while self.db["nights"].count_where("id = ?", [night_id]):  # two nights in a second
            suffix += 1
            night_id = f"{base}-{suffix}"
        with self.db.conn:
            self.db.table("nights").insert(
                {"id": night_id, "status": "running", "dry_run": 0, "started_at": now_iso()}
            )
        self.say(f"night {night_id} started")
        return night_id

    def _set_status(self, night_id: str, status: str, **extra: Any) -> None:
        with self.db.conn:
            self.db.table("nights").update(night_id, {"status": status, **extra})

    def _step(self, name: str, fn: Callable[[], Any], kind: type[Any] | None = None) -> Any:
        """Run a step once per night: a finished step's checkpoint is read back instead
        (as `kind`, a model type with to_dict/from_dict, or a plain dict)."""
        done = self.cp.done(name)
        if done is not None:
            return kind.from_dict(done) if kind else done
        if self.stop.is_set():
            raise Stopped()
        result = fn()
        self.cp.finish(name, result.to_dict() if kind else result)
        return result

    def run(self) -> NightOutcome:
        try:
            ingested = self._step("ingest", self._ingest)
            mined = self._step("mine", self._mine)
            plan = self._step("plan", self._plan, Plan)
            trained = self._train_all(plan.jobs)
            promoted = {
                job.skill: self._step(
                    f"promote:{job.skill}", partial(self._promote, job, trained), Promotion
                )
                for job in plan.jobs
            }
            failure = self.model_failure or (self.cp.done("model-failure") or {}).get("line")
            summary = build_summary(
                self.db,
                self.settings,
                self.id,
                ingested,
                mined,
                plan,
                trained,
                promoted,
                models=self._models(),
                model_failure=failure,
                cost_unknown=(self.cp.done("cost-unknown") or {}).get("roles", []),
            )
            reports = write_reports(summary, self.dir)
        except Stopped:
            self._set_status(self.id, "stopped")
            self.say("stopped; finished work is checkpointed and the night resumes next run")
            return NightOutcome(self.id, "stopped")
        except BaseException as exc:
            self._set_status(self.id, "stopped", error=str(exc)[:500])
            raise
        self._set_status(
            self.id, "done", finished_at=now_iso(), summary=json.dumps(summary.to_json())
        )
        self.say(f"report: {reports['html']}")
        return NightOutcome(self.id, "done", summary, reports)

    # -- phases ---------------------------------------------------------------------------
    def _plan(self) -> Plan:
        """Tonight's jobs, each sized to its val set and its share of the time and calls."""
        plan = plan_night(self.db, self.config, self.settings)
        return size_plan(self.db, self.settings, plan, now=datetime.now(UTC))

    def _ingest(self) -> dict[str, Any]:
        self.say("ingesting session logs")
        report = ingest_logs(self.db, self.config).to_dict()
        self.say(
            f"ingested: {report['files_changed']} changed files, {report['new_sessions']} new "
            f"sessions, {report['new_turns']} new turns"
        )
        return report

    def _mine(self) -> dict[str, Any]:
        from skillopt_sleep.mining.compiler import judge_model

        self.say("mining recurring tasks")
        with judge_model(self.config, log_dir=config_mod.state_dir(self.config)) as model:
            result = mine(self.db, self.config, model)
        self.say(f"mined: {result.n_recurring} recurring of {result.n_clusters} clusters; "
                 f"corrections compiled by {result.report['judges']['compiled_by']}")  # fmt: skip
        return {"clusters": result.n_clusters, "recurring": result.n_recurring,
                "tasks": result.n_tasks, "requests": result.n_requests}  # fmt: skip

    def _train_all(self, jobs: tuple[Job, ...]) -> dict[str, TrainedSkill]:
        results = {
            j.skill: TrainedSkill.from_dict(d)
            for j in jobs
            if (d := self.cp.done(f"train:{j.skill}"))
        }
        if all(j.skill in results for j in jobs):
            return results
        todo = [job for job in jobs if job.skill not in results]
        with self._roles([t for job in jobs for t in job.tasks], todo) as (roles, rollout):
            for job in jobs:
                if job.skill in results:
                    continue
                used = usage_total(results.values())
                results[job.skill] = self._step(
                    f"train:{job.skill}",
                    partial(self._train, job, roles, rollout, used),
                    TrainedSkill,
                )
        if self.model_failure and not self.cp.done("model-failure"):  # kept for a resume
            self.cp.finish("model-failure", {"line": self.model_failure})
        return results

    def _model_failed(self, role: str, backend: Any, exc: InfraError) -> None:
        """Say the first failed call at once, in one line: which role, model and URL, and
        the provider's own error (refused connection, 401, unknown model)."""
        with self._failure_lock:
            if self.model_failure is not None:
                return
            self.model_failure = failure_line(role, config_of(backend), exc)
        self.say(f"model call failed: {self.model_failure}")

    @contextlib.contextmanager
    def _roles(self, tasks: list[Task], todo: list[Job]) -> Iterator[tuple[Roles, RolloutAdapter]]:
        sizings = [_sizing(self.settings, job) for job in todo]
        self.say("starting the models")
        with (
            self.roles_factory(self.config, tasks) as chat_roles,
            with_clis(self.config, chat_roles, os.environ) as (roles, rollout),
        ):
            models = describe_roles(roles)
            self.cp.finish("models", models)
            named = ", ".join(f"{r} {m['model']}" for r, m in models.items())
            self.say(f"models: {where(roles) or named}")
            self.cp.finish("cost-unknown", {"roles": unpriced(self.config, os.environ)})
            if warning := cost_warning(self.config, os.environ):
                self.say(f"warning: {warning}")
            planned = sum(s.calls.total for s in sizings)
            self.meter = CallMeter(planned, self.say, eta_seconds(sizings), self.deadline)
            tick, failed = self.meter.tick, self._model_failed
            yield (
                guard(roles, self.stop, tick, failed),
                GuardedRollout(rollout, self.stop, tick, "target", failed),
            )

    def _models(self) -> dict[str, Any]:
        """Role -> what served it tonight (or would have: no training, no roles built)."""
        return self.cp.done("models") or describe_config(self.config["models"], os.environ)

    def _settings(self, job: Job, used: dict[str, float]) -> TrainSettings:
        settings = _sizing(self.settings, job).apply(self.settings.train)
        limits = settings.budget

        def rest(limit: int | None, spent: float) -> int | None:
            return None if limit is None else max(0, limit - int(spent))

        cost = limits.max_cost_usd
        budget = BudgetLimits(
            max_calls=rest(limits.max_calls, used["calls"]),
            max_tokens=rest(limits.max_tokens, used["tokens"]),
            max_cost_usd=None if cost is None else max(0.0, cost - used["cost_usd"]),
            deadline=self.deadline,
        )
        return replace(settings, budget=budget, run_id=self._run_id())

    def _run_id(self) -> str:
        """The night's ordinal among this store's nights: part of every sample id, so
        tonight's samples are fresh (a pending edit's evidence from earlier nights grows with
        new draws, never cached replays), while a resumed night, or the same first night in
        another store, draws the very same ones."""
        (earlier,) = self.db.execute(
            "SELECT COUNT(*) FROM nights WHERE id < ? AND NOT dry_run", [self.id]
        ).fetchone()
        return f"night-{earlier + 1}"

    def _train(
        self, job: Job, roles: Roles, rollout: RolloutAdapter, used: dict[str, float]
    ) -> TrainedSkill:
        name, n = job.skill, job.n_tasks
        self.say(f"training {name}: {n['train']} train, {n['val']} val, {n['test']} test tasks")
        sizing = _sizing(self.settings, job)
        eta = "" if sizing.seconds is None else f", {duration(sizing.seconds)}"
        self.say(f"plan for {name}: {sizing.shows()}; about {sizing.calls.total} calls{eta}")
        if sizing.warning():
            self.say(f"{name}: {sizing.warning()}")
        self.meter.phase = f"training {name}"
        with contextlib.closing(SqliteCache(self.db)) as cache:
            result = optimize(
                job.start_text,
                list(job.tasks),
                roles,
                settings=self._settings(job, used),
                cache=cache,
                ledger=SqliteLedger(self.db, name, self.id),
                rollout=rollout,
                stop=self.stop,
            )
        out = self.dir / "skills" / name
        for file_name, text in result.output_files().items():
            files.write_private(out / file_name, text)
        self.say(f"trained {name}: {result.accepted} accepted step(s), {result.stop_reason}")
        return TrainedSkill(
            skill=name,
            start_text=result.start_skill.render(),
            best_text=result.best_skill.render(),
            diff=result.start_skill.diff(result.best_skill),
            accepted=result.accepted,
            stop_reason=result.stop_reason,
            test=result.test,
            usage=result.usage,
            counters=dict(result.counters),
            history=tuple(result.history),
            rejected=tuple(result.rejected),
            pending=tuple(
                replace(p, comparison={k: v for k, v in p.comparison.items() if k != "scores"})
                for p in result.pending
            ),
            simulation=result.simulation,
            outputs=str(out),
            replay=routing(
                job.tasks, cli_backend(self.config, "target"), self.config["harness"]["sandbox"]
            ),
        )

    def _promote(self, job: Job, trained: dict[str, TrainedSkill]) -> Promotion:
        result = trained[job.skill]
        verdict = verdict_of(result)
        if verdict.action == "keep":
            return Promotion("unchanged", verdict.reason)
        # the candidate's edits: a user's reject or rollback puts them into the ledger
        edits = [{**e.to_dict(), "hash": e.hash} for h in result.history for e in h.edits]
        try:
            outcome = promotion.promote(
                self.db,
                self.config,
                job.skill,
                result.best_text,
                night_id=self.id,
                base_hash=job.base_hash,
                managed=job.managed,
                verdict=verdict,
                evidence={
                    "test": result.test.to_dict(),
                    "accepted": result.accepted,
                    "edits": edits,
                },  # fmt: skip
            )
        except (PromotionError, SkillPathError, OSError, UnicodeDecodeError) as exc:
            # nothing half-written; the candidate stays in the night's outputs. OSError: the
            # skill directory cannot even be read (e.g. a file where the directory should be)
            msg = str(exc).removeprefix(f"{job.skill}: ")
            self.say(f"{job.skill}: could not promote: {msg}")
            return Promotion("failed", msg, errors=(msg,))
        self.say(f"{job.skill}: {outcome.status} ({outcome.reason})")
        return Promotion(
            status=outcome.status,
            reason=outcome.reason,
            version=outcome.version,
            paths=tuple(t.path for t in outcome.targets if t.status == "promoted"),
            targets=tuple(asdict(t) for t in outcome.targets),
            errors=tuple(outcome.errors),
        )


def _sizing(settings: NightSettings, job: Job) -> Sizing:
    """The job's sizing from the plan; a plan checkpointed before plans were sized keeps the
    configured settings (its night trains as it started to)."""
    if job.sizing is not None:
        return job.sizing
    return sized(settings.train, job.n_tasks, worth=settings.worth_effect,
                 judge_calls=judge_calls(job))  # fmt: skip
