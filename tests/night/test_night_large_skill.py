"""A large SKILL.md: a night honours SIGTERM within seconds at any point of a step, and a
skill over the length cap is set aside with the reason, and costs nothing."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.large_skill import rules
from skillopt_sleep.night.run import run_night
from tests.night_helpers import CHILD, PROJECT, env, make_root, query
from tests.sim_helpers import competent_roles
from trainer.demos import MARKER

MANAGED = "add-regression-test"  # the skill the 30-session corpus trains first
ONE = {"user_skill": False, "night.max_skills": 1}


def _big_skill(root: Path, size: int) -> None:
    """MANAGED as a skill of the user's: ``size`` bytes of rules and a worked example (so a
    step asks the optimizer for rules first, trainer.propose)."""
    body = rules(size).split("---\n", 2)[2] + f"\n{MARKER}\n\nDone: a test that fails first.\n"
    path = root / "skills" / MANAGED / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {MANAGED}\ndescription: Add a regression test.\n---\n{body}")


@pytest.mark.slow
@pytest.mark.parametrize(
    "mark", ["trainer.propose:proposal_schema", "trainer.propose:apply_edits", "target:8"]
)
def test_sigterm_during_a_step_on_a_2mb_skill_stops_the_night_within_seconds(
    tmp_path: Path, mark: str
) -> None:
    """SIGTERM as the step starts its reflection prompt (the anchors of a 2 MB skill: 100 s
    when anchor finding was quadratic), as it applies its candidate's edits (then counts
    the candidate and screens it: cache keys of a 2 MB skill), and after its last train
    rollout (the minibatch is scored next)."""
    config = make_root(tmp_path, **ONE, **{"trainer.max_skill_tokens": 10**8})
    _big_skill(tmp_path, 2_000_000)
    (tmp_path / "runs").mkdir()
    cfg = tmp_path / "runs" / "config.json"
    cfg.write_text(json.dumps(config))
    out = tmp_path / "runs" / "out.json"
    read_end, write_end = os.pipe()
    args = [str(CHILD), str(cfg), str(out), str(tmp_path / "runs" / "calls.log")]
    proc = subprocess.Popen(
        [sys.executable, *args, "--mark-at", mark, "--mark-fd", str(write_end)],
        cwd=PROJECT, env=env(), stderr=subprocess.PIPE, pass_fds=(write_end,),
    )  # fmt: skip
    os.close(write_end)
    try:
        ready, _, _ = select.select([read_end], [], [], 300)
        assert ready and os.read(read_end, 1) == b"m", "the step never reached " + mark
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        exited = time.monotonic() - sent
    finally:
        os.close(read_end)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err.decode()[-2000:]
    outcome = json.loads(out.read_text())
    stopped = outcome["returned_at"] - sent
    print(f"SIGTERM at {mark}: the night stopped {stopped:.3f} s later, exited {exited:.2f} s")
    assert outcome["status"] == "stopped"
    assert stopped < 5, f"SIGTERM honoured after {stopped:.1f} s"
    # the rest is the interpreter's exit: on a busy 2-core machine, 0.5-3 s with the
    # night's libraries loaded, whatever the night did
    assert exited < 20
    (night_id, status), *_ = query(tmp_path / "state", "SELECT id, status FROM nights")
    assert status == "stopped"
    resumed = run_night(config, roles_factory=competent_roles)  # checkpointed: it goes on
    assert (resumed.night_id, resumed.status) == (night_id, "done")
    assert resumed.summary.skills[0].name == MANAGED


def test_a_skill_over_the_length_cap_is_set_aside_with_the_reason_and_no_calls(
    tmp_path: Path,
) -> None:
    config = make_root(tmp_path, **ONE, **{"trainer.max_skill_tokens": 1500})
    _big_skill(tmp_path, 20_000)  # ~3,700 tokens
    outcome = run_night(config, roles_factory=competent_roles)
    summary = outcome.summary.to_json()
    (skip,) = [s for s in summary["not_trained"] if s["skill"] == MANAGED]
    assert skip["reason"].startswith("its SKILL.md is ")
    assert skip["reason"].endswith("tokens, over trainer.max_skill_tokens=1500")
    # not trained, and it took no place: the night's one skill is the next one
    (trained,) = summary["skills"]
    assert outcome.status == "done" and trained["name"] != MANAGED
    md = Path(outcome.reports["md"]).read_text()
    assert f"{MANAGED} was not trained: {skip['reason']}" in md
    assert "raise trainer.max_skill_tokens" in md
