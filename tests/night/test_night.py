"""End-to-end nights: the simulated world as the model, a generated corpus in the real Claude
Code / Codex formats, and the real fixtures. Covers the report, promotion policy, kill -9
and resume, SIGTERM, the lock, --dry-run, and `report` / `status` through the CLI.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from benchmarks.corpus import write_corpus
from skillopt_sleep.cli import main
from skillopt_sleep.night.run import default_roles, run_night
from skillopt_sleep.report.document import NightSummary
from skillopt_sleep.report.words import OUTCOME_WORDS
from skillopt_sleep.running import lock
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.store import db_path
from tests.ingest_helpers import lay_out
from tests.night_helpers import (
    CLI,
    PROJECT,
    USER_SKILL,
    Child,
    best_texts,
    comparable,
    env,
    load_config,
    make_root,
    query,
    rollout_keys,
    tree_digest,
    write_yaml,
)
from tests.sim_helpers import competent_roles
from trainer.backends.base import Roles


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One uninterrupted night on the 30-session corpus, in a child process."""
    root = tmp_path_factory.mktemp("baseline")
    config = make_root(root)
    child = Child(root, config, 0)
    out = child.wait()
    return {"root": root, "config": config, "out": out, "calls": child.live_calls()}


# -- a night completes -----------------------------------------------------------------------
def test_night_on_generated_corpus_promotes_managed_and_stages_user_skill(baseline) -> None:
    out, root = baseline["out"], baseline["root"]
    assert out["status"] == "done"
    for fmt in ("md", "json", "html"):
        assert Path(out["reports"][fmt]).stat().st_size > 500
    skills = {s["name"]: s for s in out["summary"]["skills"]}
    assert max(s["n_tasks"]["val"] for s in skills.values()) >= 8  # the gate is powered
    managed = [s for s in skills.values() if s["managed"]]
    promoted = [s for s in managed if s["promotion"]["status"] == "promoted"]
    assert promoted, skills
    best = best_texts(root, out["night"])
    for s in promoted:
        assert s["edits"] and any(e["status"] == "accepted" for e in s["edits"])
        assert s["test"]["lift"] >= 0
        # pass-all beside the mean: the share of test answers passing every rule judge
        passes = s["test"]["pass_all"]
        assert set(passes) == {"before", "after", "lift", "ci_low", "ci_high", "n_tasks"}
        assert passes["n_tasks"] == s["test"]["n_tasks"]  # every mined task has a rule
        assert passes["lift"] == pytest.approx(passes["after"] - passes["before"])
        written = root / "skills" / s["name"] / "SKILL.md"
        assert written.read_text() == best[f"train:{s['name']}"]
    user = skills["commit-message"]
    assert not user["managed"]
    # the user's own skill is never written unreviewed: staged when an edit won, else kept
    # (whether the weak simulated optimizer wins on it is a draw; docs/promotion.md's example
    # stages it with an optimizer that always proposes what the user said)
    won = any(e["status"] == "accepted" for e in user["edits"])
    assert user["promotion"]["status"] == ("staged" if won else "unchanged")
    assert (root / "skills" / "commit-message" / "SKILL.md").read_bytes() == (
        USER_SKILL / "SKILL.md"
    ).read_bytes()
    assert baseline["calls"] and len(set(baseline["calls"])) == len(baseline["calls"])
    assert rollout_keys(root / "state") == set(baseline["calls"])


def test_night_on_real_fixtures(tmp_path: Path) -> None:
    lay_out(tmp_path / "logs")
    config = load_config(tmp_path)
    outcome = run_night(config, progress=lambda m: None)
    assert outcome.status == "done"
    assert outcome.summary.ingest["sessions"] > 0
    for path in outcome.reports.values():
        assert path.exists()
    assert outcome.exit_code == 0


class _Concurrent:
    """A simulated backend that lets the trainer keep 4 calls in flight (worker threads)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.identity, self.concurrency, self.simulation = (
            inner,
            inner.identity,
            4,
            True,
        )

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        return self.inner.complete(messages, **kwargs)


def test_concurrent_calls_give_the_same_night(baseline, tmp_path: Path) -> None:
    """Calls answered on worker threads go through the SQLite cache safely, and the night
    ends as the sequential one did (answers are seeded by cache key, not call order)."""

    @contextlib.contextmanager
    def concurrent(cfg: Any, tasks: Any) -> Iterator[Roles]:
        with competent_roles(cfg, tasks) as r:
            yield Roles(*(_Concurrent(b) for b in (r.optimizer, r.target, r.judge)))

    outcome = run_night(make_root(tmp_path), progress=lambda m: None, roles_factory=concurrent)
    assert outcome.status == "done"
    assert best_texts(tmp_path, outcome.night_id) == best_texts(
        baseline["root"], baseline["out"]["night"]
    )
    assert rollout_keys(tmp_path / "state") == set(baseline["calls"])


# -- kill -9 and resume --------------------------------------------------------------------
def test_kill9_at_several_points_then_resume_matches_uninterrupted(
    baseline, tmp_path: Path
) -> None:
    config = make_root(tmp_path)
    state = tmp_path / "state"
    total = len(baseline["calls"])
    kills: list[tuple[str, set[str]]] = []

    # 1. right after ingest is checkpointed
    child = Child(tmp_path, config, 1, pause_at="ingest")
    child.kill_when(child.paused)
    kills.append(("after ingest", rollout_keys(state)))
    assert query(state, "SELECT step FROM night_steps") == [("ingest",)]
    # 2. mid-training of the first skill, 3. mid-training of the second (skills train in
    # plan order; where each one's calls end depends on how soon the gate decided)
    first, second = (s["usage"]["calls"] for s in baseline["out"]["summary"]["skills"][:2])
    for run, share in ((2, first / 2 / total), (3, (first + second / 2) / total)):
        child = Child(tmp_path, config, run, sleep=0.002)
        child.kill_when(lambda share=share: len(rollout_keys(state)) >= share * total)
        rows = rollout_keys(state)
        assert kills[-1][1] <= rows  # nothing cached was lost
        assert not set(child.live_calls()) & kills[-1][1], "a cached call was paid again"
        kills.append((f"mid-training ({share:.0%})", rows))
    steps = {s for (s,) in query(state, "SELECT step FROM night_steps")}
    assert {"ingest", "mine", "plan"} <= steps and any(s.startswith("train:") for s in steps)
    # 4. after training, before promotion
    child = Child(tmp_path, config, 4, sleep=0.001, pause_at="promote")
    child.kill_when(child.paused)
    assert not set(child.live_calls()) & kills[-1][1], "a cached call was paid again"
    kills.append(("before promotion", rollout_keys(state)))
    steps = {s for (s,) in query(state, "SELECT step FROM night_steps")}
    assert not any(s.startswith("promote:") for s in steps)
    assert len(query(state, "SELECT id FROM nights")) == 1
    # the resumed night finishes
    child = Child(tmp_path, config, 5)
    out = child.wait()
    resumed_calls = child.live_calls()
    assert out["night"] == query(state, "SELECT id FROM nights")[0][0]
    assert not set(resumed_calls) & kills[-1][1]
    assert len(kills[-1][1]) + len(resumed_calls) == total  # no call repeated, none missing
    assert rollout_keys(state) == set(baseline["calls"])
    # the same result as the uninterrupted night
    assert best_texts(tmp_path, out["night"]) == best_texts(
        baseline["root"], baseline["out"]["night"]
    )
    assert comparable(out, tmp_path) == comparable(baseline["out"], baseline["root"])
    assert tree_digest(tmp_path / "skills") == tree_digest(baseline["root"] / "skills")


# -- SIGTERM, lock, dry run --------------------------------------------------------------------
def test_sigterm_stops_run_once_cleanly_and_next_run_resumes(tmp_path: Path) -> None:
    # a longer night, so that SIGTERM lands during training
    config = make_root(tmp_path, **{"trainer.steps_per_epoch": 3})
    cfg = write_yaml(tmp_path, config)
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [*CLI, "--config", str(cfg), "run", "--once"],
        cwd=PROJECT,
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    end = time.monotonic() + 60
    while len(rollout_keys(state)) < 50:
        assert proc.poll() is None and time.monotonic() < end
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert b"stopped" in err
    (night_id, status), *_ = query(state, "SELECT id, status FROM nights")
    assert status == "stopped"
    result = CliRunner().invoke(main, ["--config", str(cfg), "run", "--once", "--json", "-q"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["night"] == night_id and summary["status"] == "done"
    assert query(state, "SELECT status FROM nights") == [("done",)]


def test_second_run_while_locked_exits_3_and_names_holder(tmp_path: Path) -> None:
    config = make_root(tmp_path)
    cfg = write_yaml(tmp_path, config)
    with lock.hold(tmp_path / "state", "night"):
        proc = subprocess.run(
            [*CLI, "--config", str(cfg), "run", "--once"],
            cwd=PROJECT,
            env=env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 3
    assert f"night pid {os.getpid()}" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not query(tmp_path / "state", "SELECT id FROM nights")


def _no_model(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a dry run must not build or call a model")


def test_dry_run_changes_nothing(baseline, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("trainer.backends.factory.build_roles", _no_model)
    monkeypatch.setattr("skillopt_sleep.night.run.optimize", _no_model)
    # a fresh state: no store is created
    fresh = tmp_path / "fresh"
    cfg = write_yaml(tmp_path, make_root(fresh))
    result = CliRunner().invoke(main, ["--config", str(cfg), "run", "--once", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert re.search(r"would train \S+ \(managed\) on", result.output)
    assert not db_path(fresh / "state").exists()
    # after a night, with new sessions to ingest: store bytes, mtime and skill dirs unchanged
    root = tmp_path / "after"
    shutil.copytree(baseline["root"], root, ignore=shutil.ignore_patterns("runs"))
    write_corpus(tmp_path / "more", 5, seed=7)  # new sessions for the dry run to ingest
    shutil.copytree(tmp_path / "more" / ".claude", root / "logs" / ".claude", dirs_exist_ok=True)
    cfg = write_yaml(root, load_config(root))
    state = root / "state"
    # the -shm file is SQLite's shared-memory index, touched by any reader: not compared
    files = [p for p in state.glob("*.db*") if not p.name.endswith("-shm")]
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    skills = tree_digest(root / "skills")
    nights = query(state, "SELECT id, status FROM nights")
    result = CliRunner().invoke(
        main, ["--config", str(cfg), "run", "--once", "--dry-run", "--json", "-q"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.index("{") :])
    assert summary["status"] == "dry_run" and summary["ingest"]["new_sessions"] > 0
    assert summary["would_train"] and all(j["estimated_calls"] > 0 for j in summary["would_train"])
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    assert after == before
    assert tree_digest(root / "skills") == skills
    assert query(state, "SELECT id, status FROM nights") == nights


# -- report and status through the CLI -------------------------------------------------------
class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.refs += [v or "" for k, v in attrs if k in ("src", "href", "xlink:href", "action")]


def test_report_and_status_cli_after_a_night(baseline) -> None:
    root, night = baseline["root"], baseline["out"]["night"]
    cfg = write_yaml(root, baseline["config"])
    run = CliRunner().invoke
    md = run(main, ["--config", str(cfg), "report"])
    assert md.exit_code == 0, md.output
    assert md.output.startswith(f"# skillopt-sleep night {night}")
    assert "Did my skills get better?" in md.output
    js = run(main, ["--config", str(cfg), "report", night, "--format", "json"])
    assert js.exit_code == 0 and json.loads(js.output)["night"] == night
    measured = [s for s in json.loads(js.output)["skills"] if s["test"]]
    assert measured and all(s["test"]["pass_all"] for s in measured)
    assert "answers passing every rule" in md.output.split("## What to do")[0]
    html = run(main, ["--config", str(cfg), "report", "--format", "html"])
    assert html.exit_code == 0
    page = _Html()
    page.feed(html.output)
    assert page.tags.count("svg") >= 2  # charts: scores over nights, edits, cost
    assert {"rect", "title"} & set(page.tags)
    assert not [r for r in page.refs if re.match(r"(?i)(https?:)?//", r)]
    assert not re.search(r"(?i)@import|url\(\s*['\"]?(https?:)?//|<script[^>]+src=", html.output)
    assert not [t for t in page.tags if t in ("link", "img", "iframe")]
    assert Path(baseline["out"]["reports"]["html"]).read_text() == html.output.rstrip("\n")
    missing = run(main, ["--config", str(cfg), "report", "no-such-night"])
    assert missing.exit_code == 2 and "no night 'no-such-night'" in missing.output
    assert "`skillopt-sleep nights` lists them" in missing.output
    status = run(main, ["--config", str(cfg), "status"])
    assert status.exit_code == 0
    assert f"last night: {night} (done)" in status.output
    staged = [s["name"] for s in baseline["out"]["summary"]["skills"]
              if s["promotion"]["status"] == "staged"]  # fmt: skip
    said = f"{len(staged)} ({', '.join(staged)})" if staged else "none"  # a draw of the sim
    assert f"pending reviews: {said}" in status.output
    assert "daemon: not running" in status.output
    info = json.loads(run(main, ["--config", str(cfg), "status", "--json"]).output)
    assert info["last_night"]["id"] == night and info["last_night"]["status"] == "done"
    assert [r["name"] for r in info["pending_reviews"]] == staged
    assert info["budget_used"]["calls"] == baseline["out"]["summary"]["usage"]["calls"]
    assert info["daemon"]["alive"] is False


def only_the_optimizer_proposes(config: dict[str, Any], tmp: Path) -> None:
    """Mine the corpus and import its tasks reviewed, as a user may (`tasks export` /
    `tasks import`), without the judges quoting the user's corrections and without the
    answers they accepted: the optimizer is then the only source of candidates (the user's
    corrections and accepted answers come first otherwise:
    tests/night/test_night_corrections.py)."""
    from dataclasses import replace as with_

    from skillopt_sleep.mining import load_tasks, mine
    from skillopt_sleep.mining.taskfile import export, import_file
    from skillopt_sleep.settings.logs import ingest_logs
    from skillopt_sleep.store import open_store
    from trainer.tasks import user_said

    db = open_store(Path(config["state_dir"]))
    try:
        ingest_logs(db, config)
        mine(db, config)
        reviewed = [
            with_(
                t,
                judges=tuple(j for j in t.judges if j.kind == "rubric" or not user_said(j.source)),
                meta={k: v for k, v in t.meta.items() if k != "accepted"},
            )
            for t in load_tasks(db)
        ]
        export(reviewed, tmp / "reviewed.yaml")
        import_file(db, tmp / "reviewed.yaml")
    finally:
        db.close()


class _ProposesNeutral:
    """An optimizer that always proposes the same line, which changes nothing for the
    simulated target: the gate can neither accept nor reject it within two sweeps."""

    identity, concurrency, simulation = "proposes-neutral", 1, True

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        from trainer.backends.base import Completion

        return Completion(json.dumps({"edits": [{"kind": "add", "text": "- Be kind."}]}))


def test_undecided_candidates_are_carried_to_the_next_night_with_their_evidence(
    tmp_path: Path,
) -> None:
    @contextlib.contextmanager
    def neutral(cfg: Any, tasks: Any) -> Iterator[Roles]:
        with default_roles(cfg, tasks) as r:
            yield Roles(_ProposesNeutral(), r.target, r.judge)

    config = make_root(tmp_path, **{"trainer.max_samples": 2, "trainer.screen": False})
    only_the_optimizer_proposes(config, tmp_path)
    nights = [run_night(config, progress=lambda m: None, roles_factory=neutral) for _ in (1, 2)]
    for n, night in enumerate(nights, start=1):
        assert night.status == "done"
        skills = night.summary.to_json()["skills"]
        assert skills and all(s["outcome"] == "not_enough_evidence" for s in skills)
        # the pending candidates read back from the stored JSON as they were written
        assert NightSummary.from_json(night.summary.to_json()) == night.summary
        md = night.reports["md"].read_text()
        assert md.count("Pending (undecided, carried to the next night):") == len(skills)
        # what the gate's level bounds, and at which level (the configured alpha)
        assert night.summary.gate["alpha"] == 0.05
        assert "The gate controls the family-wise false-accept rate 0.05 per skill and night" in md
        for s in skills:
            (p,) = s["pending"]  # one candidate per skill, never accepted nor rejected
            assert p["summary"] == "- Be kind." and p["nights"] == n
            assert p["sweeps"] == 2 * n and p["pairs"] <= p["sweeps"] * p["n_tasks"]
            assert "accepted when its e-value reaches" in p["decides"]
            assert f"over {n} night(s)" in md
            # the second night pairs with the skill's val sweeps the first one kept
            carried = s["counters"].get("incumbent_sweeps_carried", 0)
            assert carried == 2 * (n - 1)
            calls = 2 * s["n_tasks"]["val"]
            reused = f"reused 2 val sweeps of this skill from an earlier night ({calls} calls"
            assert (reused in md) == (n == 2)
            assert (reused in night.reports["html"].read_text()) == (n == 2)
            assert s["counters"]["incumbent_sweeps"] == 2
    rows = query(tmp_path / "state", "SELECT skill, kind FROM edits")
    assert {kind for _skill, kind in rows} == {"pending"} and len(rows) == len(skills)
    kept = query(tmp_path / "state", "SELECT skill, record FROM streams")
    assert sorted(k for k, _ in kept) == sorted(s["name"] for s in skills)
    assert all(len(json.loads(r)["sweeps"]) == 4 for _, r in kept)


def test_a_night_never_reuses_an_id_taken_in_the_same_second(tmp_path: Path) -> None:
    from datetime import UTC

    from skillopt_sleep.store import open_store

    state = tmp_path / "state"
    config = config_mod.load(
        overrides={
            "state_dir": str(state),
            "sources.claude.roots": [str(tmp_path / "none")],
            "sources.codex.roots": [str(tmp_path / "none")],
            "models.backend": "sim",
        }
    )
    db = open_store(state)
    now = datetime.now(UTC)
    taken = [(now + timedelta(seconds=s)).strftime("%Y-%m-%dT%H-%M-%SZ") for s in range(5)]
    db["nights"].insert_all(
        [{"id": t, "status": "done", "dry_run": 0, "started_at": "2000"} for t in taken]
    )
    db.close()
    outcome = run_night(config)
    assert outcome.status == "done"
    assert outcome.night_id not in taken and outcome.night_id.rsplit("-", 1)[0] in taken


def test_the_dry_run_promises_the_calls_the_night_plans(tmp_path: Path) -> None:
    config = make_root(tmp_path)
    dry = run_night(config, dry_run=True, progress=lambda m: None)
    promised = sum(j["estimated_calls"] for j in dry.to_json()["would_train"])
    lines: list[str] = []
    night = run_night(config, progress=lines.append, roles_factory=competent_roles)
    (first,) = [m for m in lines if re.match(r"training \S+: 1 of about", m)][:1]
    assert first.split(" of about ")[1].startswith(f"{promised} calls")
    skills = night.summary.to_json()["skills"]
    assert promised == sum(sum(s["plan"]["calls"].values()) for s in skills)
    # each skill's plan is said before its training, and its calls stay near the plan
    for s in skills:
        assert any(m.startswith(f"plan for {s['name']}: ") for m in lines)
        assert s["usage"]["calls"] <= 1.5 * sum(s["plan"]["calls"].values())


def test_a_night_that_cannot_show_a_gain_worth_having_says_so_up_front(tmp_path: Path) -> None:
    @contextlib.contextmanager
    def neutral(cfg: Any, tasks: Any) -> Iterator[Roles]:
        with default_roles(cfg, tasks) as r:
            yield Roles(_ProposesNeutral(), r.target, r.judge)

    # a gain of 0.01 on the corpus's 8-16 val tasks at two sweeps: no plan can show it
    config = make_root(tmp_path, **{"night.worth_effect": 0.01})
    only_the_optimizer_proposes(config, tmp_path)
    lines: list[str] = []
    night = run_night(config, progress=lines.append, roles_factory=neutral)
    md = night.reports["md"].read_text()
    first = md.split("## What to do")[0]
    for s in night.summary.to_json()["skills"]:
        plan = s["plan"]
        assert not plan["can_detect"] and plan["comparisons"] == 3  # as configured
        assert f"{s['name']}: the smallest val gain worth having (0.01) cannot be detected" in (
            "\n".join(lines)
        )
        assert (
            f"{s['name']}: {OUTCOME_WORDS[s['outcome']]} — tonight could not show what is "
            "worth having: the "
            f"smallest val gain worth having (0.01) cannot be detected tonight: "
            f"{s['n_tasks']['val']} val tasks × 40 sweep(s) at alpha 0.0167 can show only a gain "
            f"of {plan['detectable']:.3g} or more"
        ) in first
        assert "deadline came" not in first
