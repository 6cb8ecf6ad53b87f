"""The loop on the simulated world: budgets, resume, ledger, firewall, concurrency."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from scripted_helpers import Repeating

from tests.sim_helpers import Killed, wrapped
from trainer import JsonLedger, MemoryCache, TrainSettings, optimize
from trainer.backends.base import Completion, InfraError, Roles
from trainer.budget import BudgetLimits
from trainer.calls import Stopped
from trainer.engine import PENDING_NIGHTS
from trainer.shapes import CURRENT, RUN
from trainer.sim import SimWorld
from trainer.skill import SkillDoc

WORLD = SimWorld.generate(2, n_rules=4, n_harmful=2, n_train=12, n_val=30, n_test=20)
SETTINGS = TrainSettings(epochs=2, steps_per_epoch=3, minibatch=6, seed=1)


def reflections(seen: list) -> list:
    """The reflection prompts among an optimizer's calls (not its worked-example answers)."""
    return [m for m in seen if m[0]["content"].startswith("You improve a skill")]


def fingerprint(r) -> tuple:
    return (
        r.best_skill.hash,
        json.dumps([h.to_dict() for h in r.history], sort_keys=True),
        json.dumps([x.listed() for x in r.rejected], sort_keys=True),
        r.counters,
        r.stop_reason,
        r.test.to_dict(),
        r.usage.calls,
    )


@pytest.fixture(scope="module")
def baseline():
    roles, shared = wrapped(WORLD)
    return optimize(WORLD.start_skill, WORLD.tasks, roles, settings=SETTINGS), shared


def test_short_sim_run_improves_test_score(baseline) -> None:
    result, _ = baseline
    assert result.stop_reason == "completed" and result.simulation
    assert result.accepted >= 1 and result.counters["comparisons"] >= 2
    assert WORLD.expected_score(result.best_skill) > WORLD.expected_score(WORLD.start_skill)
    assert result.test.lift > 0 and result.test.ci_low <= result.test.lift <= result.test.ci_high
    for step in result.history:
        ev = step.evidence
        assert ev["verdict"] == "accept" and ev["e_value"] >= 1 / ev["alpha"]
        assert ev["p_value"] <= ev["alpha"]
    # alpha accounting: every share (0.05 / 6 per step) is spent on a comparison that did not
    # accept (rejected, or still pending), passed on after an accept, or left over; never
    # more than 0.05 in total.
    spent = [r.gate["alpha"] for r in [*result.rejected, *result.pending] if "alpha" in r.gate]
    assert sum(spent) <= 0.05 + 1e-12 and all(a >= 0.05 / 6 - 1e-12 for a in spent)


def test_kill_and_resume_gives_identical_result_without_repeated_calls(baseline) -> None:
    full, full_shared = baseline
    total = full_shared["count"]
    for kill_after in (1, total // 3, total - 5):
        cache = MemoryCache()
        roles, first = wrapped(WORLD, kill_after=kill_after)
        with pytest.raises(Killed):
            optimize(WORLD.start_skill, WORLD.tasks, roles, settings=SETTINGS, cache=cache)
        roles2, second = wrapped(WORLD)
        again = optimize(WORLD.start_skill, WORLD.tasks, roles2, settings=SETTINGS, cache=cache)
        assert fingerprint(again) == fingerprint(full)
        assert not set(first["keys"]) & set(second["keys"])
        assert first["count"] + second["count"] == total
    roles3, third = wrapped(WORLD)
    optimize(WORLD.start_skill, WORLD.tasks, roles3, settings=SETTINGS, cache=cache)
    assert third["count"] == 0  # a finished run replays entirely from the cache


def test_results_do_not_depend_on_completion_order(baseline) -> None:
    full, _ = baseline
    roles, _ = wrapped(WORLD, concurrency=4, jitter=True)
    assert fingerprint(
        optimize(WORLD.start_skill, WORLD.tasks, roles, settings=SETTINGS)
    ) == fingerprint(full)


@pytest.mark.parametrize(
    ("limits", "kind"),
    [
        (BudgetLimits(max_calls=150), "calls"),
        (BudgetLimits(max_tokens=20_000), "tokens"),
        (BudgetLimits(max_cost_usd=0.05), "cost"),
        (BudgetLimits(deadline=time.time() - 1), "deadline"),
    ],
)
def test_each_budget_ends_the_run_cleanly_and_is_named(limits, kind) -> None:
    roles, shared = wrapped(WORLD, cost=0.0005)
    result = optimize(
        WORLD.start_skill, WORLD.tasks, roles, settings=replace(SETTINGS, budget=limits)
    )
    assert result.stop_reason == f"budget: {kind}"
    assert result.best_skill.hash in {WORLD.start_skill.hash} | {h.to_hash for h in result.history}
    if kind == "calls":
        assert result.usage.calls <= 150
    if kind == "deadline":
        assert shared["count"] == 0 and result.best_skill == WORLD.start_skill


def test_ledger_persists_and_judged_edits_are_never_compared_anew(tmp_path: Path) -> None:
    ledger = JsonLedger(tmp_path / "ledger.json")
    same = json.dumps({"edits": [{"kind": "add", "text": "- Be kind to reviewers."}]})
    # one sweep a night: too few pairs to reject a line that changes nothing within two
    # nights, and far too little evidence to accept it
    settings = replace(SETTINGS, screen=False, run_id="night-1", max_samples=1)
    roles = WORLD.roles()
    first = optimize(
        WORLD.start_skill,
        WORLD.tasks,
        Roles(Repeating(same), roles.target, roles.judge),
        settings=settings,
        ledger=ledger,
    )
    assert first.counters["comparisons"] == 1  # compared once, then skipped in-run
    assert first.counters["ledger_skipped"] == 5
    # a neutral line: undecided, so kept pending with its evidence, not banned
    (held,) = first.pending
    assert first.rejected == [] and held.gate["verdict"] == "pending"
    reopened = JsonLedger(tmp_path / "ledger.json")
    h = held.edit_hash
    assert h in reopened and reopened.recent(5)[0].text == "add: - Be kind to reviewers."
    assert reopened.pending()[0].comparison["runs"] == ["night-1"]
    opt = Repeating(same)
    second = optimize(
        WORLD.start_skill,
        WORLD.tasks,
        Roles(opt, roles.target, roles.judge),
        settings=replace(settings, run_id="night-2"),
        ledger=reopened,
    )
    # the next night continues its e-process (fresh samples, same alpha), never starts anew
    assert second.counters.get("comparisons", 0) == 0 and second.counters["ledger_skipped"] == 6
    assert second.counters["pending_continued"] >= 1
    again = JsonLedger(tmp_path / "ledger.json").pending()[0].comparison
    assert again["runs"] == ["night-1", "night-2"] and again["alpha"] == held.comparison["alpha"]
    assert (held.gate["sweeps"], again["evidence"]["sweeps"]) == (1, 2)
    reflection = reflections(opt.seen)[0][-1]["content"]
    assert "ALREADY TRIED" in reflection and "Be kind to reviewers" in reflection
    # the same run id again has nothing fresh to add: the evidence is left as it is
    third = optimize(
        WORLD.start_skill,
        WORLD.tasks,
        Roles(Repeating(same), roles.target, roles.judge),
        settings=replace(settings, run_id="night-2"),
        ledger=JsonLedger(tmp_path / "ledger.json"),
    )
    assert third.counters.get("pending_continued", 0) == 0
    # undecided for PENDING_NIGHTS nights: dropped, not banned, and so compared anew
    aged = JsonLedger(tmp_path / "ledger.json")
    rec = aged.pending()[0]
    runs = [f"night-{i}" for i in range(PENDING_NIGHTS)]
    aged.add(rec.edit_hash, replace(rec, comparison={**rec.comparison, "runs": runs}).to_dict())
    fourth = optimize(
        WORLD.start_skill,
        WORLD.tasks,
        Roles(Repeating(same), roles.target, roles.judge),
        settings=replace(settings, run_id="night-9"),
        ledger=aged,
    )
    (dropped,) = [r for r in fourth.rejected if r.status == "dropped"]
    assert dropped.reason == f"dropped undecided after {PENDING_NIGHTS} nights"
    assert fourth.counters["pending_dropped"] == 1 and fourth.counters["comparisons"] == 1


def test_pending_evidence_lapses_when_the_skill_changed(tmp_path: Path) -> None:
    ledger = JsonLedger(tmp_path / "ledger.json")
    same = json.dumps({"edits": [{"kind": "add", "text": "- Be kind to reviewers."}]})
    roles = WORLD.roles()
    settings = replace(SETTINGS, screen=False, run_id="night-1", max_samples=1)
    opt = Roles(Repeating(same), roles.target, roles.judge)
    optimize(WORLD.start_skill, WORLD.tasks, opt, settings=settings, ledger=ledger)
    (held,) = ledger.pending()
    changed = WORLD.start_skill.with_body(WORLD.start_skill.body + "\n- Keep a changelog.\n")
    later = optimize(
        changed,
        WORLD.tasks,
        Roles(Repeating(same), roles.target, roles.judge),
        settings=replace(settings, run_id="night-2"),
        ledger=ledger,
    )
    # its evidence was about another incumbent: discarded, said why, and compared afresh
    assert later.counters["pending_discarded"] == 1 and later.counters["comparisons"] == 1
    (gone,) = [r for r in later.rejected if r.status == "dropped"]
    assert gone.edit_hash == held.edit_hash
    assert gone.reason == "kept evidence discarded: the skill it was measured against has changed"
    assert all(p.comparison["from_hash"] == changed.hash for p in ledger.pending())


def test_infra_errors_are_skipped_not_scored() -> None:
    class Down:
        identity, concurrency, simulation = "down", 1, True

        def complete(self, messages, *, json_schema=None, max_tokens=None):
            raise InfraError("503")

    opt = Repeating("{}")
    roles = WORLD.roles()
    r = optimize(WORLD.start_skill, WORLD.tasks, Roles(opt, Down(), roles.judge), settings=SETTINGS)
    assert opt.seen == []  # nothing looked like a failure: there was no answer to judge
    assert r.usage.infra_errors > 0 and r.counters["skipped_samples"] > 0
    assert r.accepted == 0 and r.rejected == []


def test_outputs(baseline, tmp_path: Path) -> None:
    result, _ = baseline
    paths = result.write_outputs(tmp_path / "out")
    names = {p.name for p in paths}
    assert names == {
        "best_skill.md",
        "history.json",
        "rejected.json",
        "pending.json",
        "usage.json",
        "summary.json",
    }
    summary = json.loads((tmp_path / "out/summary.json").read_text())
    assert summary["label"].startswith("SIMULATION") and summary["test"]["lift"] > 0
    for name in names - {"best_skill.md"}:  # every file's shape says its version
        assert json.loads((tmp_path / "out" / name).read_text())["version"] == CURRENT[RUN]
    assert (
        SkillDoc.parse((tmp_path / "out/best_skill.md").read_text()).name == result.best_skill.name
    )


def test_a_small_val_set_decides_a_large_effect_and_holds_a_small_one() -> None:
    tasks = [t for t in WORLD.tasks if t.split != "val"] + [
        t for t in WORLD.tasks if t.split == "val"
    ][:6]
    val = [t for t in tasks if t.split == "val"]
    taught = WORLD.taught(WORLD.start_skill.render())
    rule = max(
        (r for r in WORLD.rules if r.id not in taught),
        key=lambda r: (sum(r.id in WORLD.needs[t.id] for t in val), r.id),
    )
    teach = json.dumps({"edits": [{"kind": "add", "text": f"- {rule.paraphrases[0]}"}]})
    roles = WORLD.roles()
    settings = replace(SETTINGS, screen=False, epochs=1, steps_per_epoch=1)
    r = optimize(
        WORLD.start_skill, tasks, Roles(Repeating(teach), roles.target, roles.judge),
        settings=settings,
    )  # fmt: skip
    needs = sum(rule.id in WORLD.needs[t.id] for t in val)
    assert needs >= 2 and r.accepted == 1  # six val tasks are enough for a rule they need
    neutral = json.dumps({"edits": [{"kind": "add", "text": "- Be kind to reviewers."}]})
    r2 = optimize(
        WORLD.start_skill, tasks, Roles(Repeating(neutral), roles.target, roles.judge),
        settings=settings,
    )  # fmt: skip
    assert r2.accepted == 0 and r2.stop_reason == "completed"


def test_a_length_capped_edit_is_held_not_banned_and_compared_once_it_fits(
    tmp_path: Path,
) -> None:
    ledger = JsonLedger(tmp_path / "ledger.json")
    line = "- Before finishing, run the test suite and the linter on every changed file."
    same = json.dumps({"edits": [{"kind": "add", "text": line}]})
    roles = WORLD.roles()
    start = WORLD.start_skill.n_tokens
    tight = replace(SETTINGS, screen=False, run_id="night-1", max_skill_tokens=start + 3)
    first = optimize(
        WORLD.start_skill,
        WORLD.tasks,
        Roles(Repeating(same), roles.target, roles.judge),
        settings=tight,
        ledger=ledger,
    )
    # the cap is no evidence against the edit: pending (not "did not help"), never compared
    assert first.counters["length_capped"] == 1 and first.counters.get("comparisons", 0) == 0
    assert first.rejected == []
    (held,) = JsonLedger(tmp_path / "ledger.json").pending()
    assert held.status == "pending" and held.reason.startswith("length cap")
    # a night whose cap leaves room compares it on evidence instead of skipping it
    roomy = replace(tight, run_id="night-2", max_skill_tokens=start + 200)
    second = optimize(
        WORLD.start_skill,
        WORLD.tasks,
        Roles(Repeating(same), roles.target, roles.judge),
        settings=roomy,
        ledger=JsonLedger(tmp_path / "ledger.json"),
    )
    assert second.counters.get("comparisons", 0) >= 1
    assert second.counters.get("length_capped", 0) == 0


def test_a_skill_over_the_length_cap_is_not_trained_and_costs_nothing() -> None:
    roles, shared = wrapped(WORLD)
    capped = replace(SETTINGS, max_skill_tokens=WORLD.start_skill.n_tokens - 1)
    result = optimize(WORLD.start_skill, WORLD.tasks, roles, settings=capped)
    assert result.stop_reason == (
        f"length cap: the skill is {WORLD.start_skill.n_tokens} tokens, "
        f"over {WORLD.start_skill.n_tokens - 1}"
    )
    assert shared["count"] == 0 and result.usage.calls == 0
    assert result.best_skill == WORLD.start_skill and result.test.method.startswith("unchanged")


class StopWhen:
    """Sets `stop` once `at` calls (of any role) are answered, as a SIGTERM would."""

    def __init__(self, inner, stop: threading.Event, answered: list[int], at: int) -> None:
        self.inner, self.stop, self.answered, self.at = inner, stop, answered, at
        self.identity, self.concurrency = inner.identity, inner.concurrency
        self.simulation = True

    def complete(self, messages, **kwargs) -> Completion:
        out = self.inner.complete(messages, **kwargs)
        self.answered[0] += 1
        if self.answered[0] == self.at:
            self.stop.set()
        return out


def test_a_stop_request_ends_the_run_before_its_next_call_and_a_rerun_replays_it(
    baseline,
) -> None:
    full, full_shared = baseline
    total = full_shared["count"]
    cache = MemoryCache()
    roles, first = wrapped(WORLD)
    stop, answered = threading.Event(), [0]
    stopping = Roles(
        *(StopWhen(getattr(roles, r), stop, answered, total // 2)
          for r in ("optimizer", "target", "judge"))
    )  # fmt: skip
    with pytest.raises(Stopped):
        optimize(
            WORLD.start_skill, WORLD.tasks, stopping, settings=SETTINGS, cache=cache, stop=stop
        )
    assert first["count"] == total // 2  # not one call started after the request
    roles2, second = wrapped(WORLD)
    again = optimize(WORLD.start_skill, WORLD.tasks, roles2, settings=SETTINGS, cache=cache)
    assert fingerprint(again) == fingerprint(full)
    assert first["count"] + second["count"] == total
    # a stop set before a cached replay ends it at once too
    roles3, third = wrapped(WORLD)
    with pytest.raises(Stopped):
        optimize(WORLD.start_skill, WORLD.tasks, roles3, settings=SETTINGS, cache=cache, stop=stop)
    assert third["count"] == 0


class Hanging:
    """A model whose answer never comes (a proposal on a busy CPU can take many minutes)."""

    identity, concurrency = "hanging", 1

    def __init__(self) -> None:
        self.started, self.release = threading.Event(), threading.Event()

    def complete(self, messages, **kwargs) -> Completion:
        self.started.set()
        self.release.wait()
        return Completion("late")


def test_a_stop_request_does_not_wait_for_a_call_in_flight() -> None:
    from trainer.budget import Budget
    from trainer.calls import STOP_POLL_S, Caller, Request

    model, stop = Hanging(), threading.Event()
    caller = Caller(Roles(model, model, model), MemoryCache(), Budget(), stop=stop)
    outcome: list[BaseException] = []

    def night() -> None:
        try:
            caller.run(
                "optimizer", [Request([{"role": "user", "content": "propose"}], "h", "t", 0)]
            )
        except BaseException as exc:  # noqa: BLE001 - what the night would see
            outcome.append(exc)

    worker = threading.Thread(target=night)
    worker.start()
    assert model.started.wait(30)
    stop.set()
    worker.join(timeout=30 * STOP_POLL_S)
    try:
        assert not worker.is_alive() and isinstance(outcome[0], Stopped)
    finally:
        model.release.set()
