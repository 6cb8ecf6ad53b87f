"""Promotion on a real file system: atomic, versioned, confined, never over the user's edits."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillopt_sleep import files
from skillopt_sleep import promotion as P
from skillopt_sleep.cli import main
from skillopt_sleep.promotion import dirs as skilldirs
from skillopt_sleep.promotion.verdict import Verdict, decide
from skillopt_sleep.promotion.versions import version_text
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.store import open_store
from trainer.result import TestLift as Lift

V1 = "---\nname: review\ndescription: Review a PR\n---\n# Steps\n- read the diff\n"
V2 = V1 + "- run the tests\n"
V3 = V2 + "- check the changelog\n"

IMPROVED = Verdict("improved", "promote", "", "pass-all")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    home = Path(os.environ["HOME"])  # conftest's isolated_home
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    # these tests create managed skills: opt in to promoting a new skill's first version
    config = config_mod.load(overrides={"promotion.auto_promote_new_skills": True})
    db = open_store(config_mod.state_dir(config))
    yield {"config": config, "db": db, "root": home / ".claude" / "skills", "home": home}
    db.close()


def _skill(env: dict[str, Any], name: str = "review") -> Path:
    return env["root"] / name / "SKILL.md"


def _write(env: dict[str, Any], text: str, name: str = "review") -> None:
    _skill(env, name).parent.mkdir(parents=True, exist_ok=True)
    _skill(env, name).write_text(text)


def _own(env: dict[str, Any], text: str = V1) -> str:
    """A managed skill skillopt-sleep created (night n0); returns its hash."""
    out = _promote(env, text, "n0", None)
    assert out.status == "promoted", out.reason
    return skilldirs.text_hash(text)


def _promote(
    env: dict[str, Any], text: str, night: str, base: Any, **kw: Any
) -> P.PromotionOutcome:
    kw.setdefault("managed", True)
    kw.setdefault("verdict", IMPROVED)
    return P.promote(env["db"], env["config"], "review", text, night_id=night, base_hash=base, **kw)


def test_targets_follow_config_and_claude_config_dir(env, monkeypatch, tmp_path) -> None:
    assert [t.root for t in skilldirs.targets(env["config"])] == [env["root"]]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{tmp_path}/c1,{tmp_path}/c2")
    proj = tmp_path / "proj"
    config = config_mod.merge(
        env["config"],
        {
            "promotion": {
                "targets": ["claude_user", "codex_user", "claude_project", "codex_project"],
                "project_dirs": [str(proj)],
            }
        },
    )
    assert [t.root for t in skilldirs.targets(config)] == [
        tmp_path / "c1" / "skills",
        env["home"] / ".agents" / "skills",
        proj / ".claude" / "skills",
        proj / ".agents" / "skills",
    ]
    with pytest.raises(config_mod.ConfigError, match="promotion.targets.*got the item 'x'"):
        config_mod.load(overrides={"promotion.targets": ["x"]}, environ={})


def test_managed_skill_is_promoted_atomically_and_versioned(env) -> None:
    out = _promote(env, V1, "n1", None, evidence={"lift": 0.2})
    assert out.status == "promoted" and _skill(env).read_text() == V1
    assert sorted(os.listdir(_skill(env).parent)) == ["SKILL.md"]  # no temp file left
    (row,) = P.history(env["db"], "review")
    assert row.event == "promoted" and row.night_id == "n1" and row.at
    assert row.target == str(env["root"])
    assert version_text(env["config"], "review", row.version) == V1
    (decision,) = env["db"]["promotions"].rows
    assert decision["path"] == str(_skill(env)) and '"lift": 0.2' in decision["evidence"]
    assert P.is_managed(env["db"], "review", str(env["root"]))  # it created the skill


def test_user_skill_is_staged_then_adopted(env) -> None:
    _write(env, V1)
    out = _promote(env, V2, "n1", skilldirs.text_hash(V1), managed=False)
    assert out.status == "staged" and _skill(env).read_text() == V1
    assert [r["name"] for r in P.pending(env["db"])] == ["review"]
    assert "+- run the tests" in P.diff(env["db"], env["config"], "review")
    (row,) = P.adopt(env["db"], env["config"], None)
    assert row["status"] == "adopted" and _skill(env).read_text() == V2
    assert P.pending(env["db"]) == []


def test_opt_in_promotes_user_skills(env) -> None:
    _write(env, V1)
    config = config_mod.merge(env["config"], {"promotion": {"auto_promote_user_skills": True}})
    out = P.promote(
        env["db"],
        config,
        "review",
        V2,
        night_id="n1",
        base_hash=skilldirs.text_hash(V1),
        managed=False,
        verdict=IMPROVED,
    )
    assert out.status == "promoted" and _skill(env).read_text() == V2


def _facts(**kw: Any) -> P.Facts:
    base = {"managed": True, "exists": True, "ours": True, "first": False,
            "verdict": IMPROVED}  # fmt: skip
    return P.Facts(**{**base, **kw})


def _verdict(lift: float | None, low: float = -0.05, note: str = "") -> Verdict:
    test = (
        Lift.skipped(note)
        if lift is None
        else Lift.from_dict(
            {
                "n_tasks": 8,
                "start_score": 0.4,
                "best_score": 0.4 + lift,
                "lift": lift,
                "ci_low": low,
                "ci_high": 0.3,
            }
        )  # fmt: skip
    )
    return decide(accepted=1, undecided=0, endpoint_failed="", stop_reason="completed",
                  test=test)  # fmt: skip


def test_policy_follows_the_verdict_and_the_owner(env) -> None:
    cfg = env["config"]
    assert P.policy(cfg, _facts())[0]
    unconfirmed = _verdict(0.05)  # the test did not go down: the gate's evidence stands
    assert unconfirmed.outcome == "unconfirmed" and P.policy(cfg, _facts(verdict=unconfirmed))[0]
    assert not P.policy(cfg, _facts(managed=False))[0]
    auto, why = P.policy(cfg, _facts(verdict=_verdict(None, note="budget: deadline")))
    assert not auto and "held-out test was not measured (budget: deadline)" in why
    worse = _verdict(-0.2, low=-0.4)
    assert worse.action == "keep"
    with pytest.raises(ValueError, match="keeps the skill"):
        _promote(env, V1, "n1", None, verdict=worse)
    assert not _skill(env).exists() and list(env["db"]["promotions"].rows) == []


def test_a_skill_whose_test_was_not_measured_is_never_promoted(env) -> None:
    out = _promote(env, V1, "n1", None, verdict=_verdict(None, note="budget tokens ran out"))
    assert out.status == "staged" and not _skill(env).exists()
    assert "not measured (budget tokens ran out)" in out.reason


def test_user_edit_since_night_start_is_staged_never_overwritten(env) -> None:
    _own(env, V1)
    base = P.snapshot(env["config"], "review")
    assert base == {str(env["root"]): skilldirs.text_hash(V1)}
    _write(env, V1 + "my own line\n")  # the user edits during the night
    out = _promote(env, V2, "n1", base)
    assert out.status == "staged" and "edited since the night began" in out.reason
    assert _skill(env).read_text() == V1 + "my own line\n"
    # a skill created by the user during the night is not clobbered either
    _write(env, "mine\n", "fresh")
    out = P.promote(env["db"], env["config"], "fresh", V1, night_id="n1", base_hash=None,
                    managed=True, verdict=IMPROVED)  # fmt: skip
    assert out.status == "staged" and _skill(env, "fresh").read_text() == "mine\n"


def test_every_version_kept_and_rollback_walks_back(env) -> None:
    _promote(env, V2, "n1", _own(env, V1))
    _promote(env, V3, "n2", skilldirs.text_hash(V2))
    versions = sorted(env["db"]["skill_versions"].rows, key=lambda r: r["version"])
    texts = [version_text(env["config"], "review", r["version"]) for r in versions]
    assert texts == [V1, V2, V3]  # numbered in the order they were on disk
    P.rollback(env["db"], env["config"], "review")
    assert _skill(env).read_text() == V2
    P.rollback(env["db"], env["config"], "review")
    assert _skill(env).read_text() == V1
    P.rollback(env["db"], env["config"], "review")
    assert not _skill(env).exists()  # the first promotion had created it
    with pytest.raises(P.PromotionError, match="nothing to roll back"):
        P.rollback(env["db"], env["config"], "review")
    P.rollback(env["db"], env["config"], "review", to_version=3)
    assert _skill(env).read_text() == V3
    events = [(e.event, e.version, e.reason) for e in P.history(env["db"], "review")]
    assert events == [
        ("promoted", 1, "gate accepted and the held-out test confirmed it"),
        ("promoted", 2, "gate accepted and the held-out test confirmed it"),
        ("promoted", 3, "gate accepted and the held-out test confirmed it"),
        ("rolled_back", 2, "rolled back: restored v2"),
        ("rolled_back", 1, "rolled back: restored v1"),
        ("rolled_back", None, "rolled back: removed (the promotion had created it)"),
        ("rolled_back", 3, "rolled back: restored v3"),
    ]


def test_rollback_of_a_created_skill_removes_it(env) -> None:
    _promote(env, V1, "n1", None)
    P.rollback(env["db"], env["config"], "review")
    assert not _skill(env).exists()
    # the skill skillopt-sleep created is gone: a same-named one later is the user's
    assert not P.is_managed(env["db"], "review", str(env["root"]))


def test_history_tells_the_story_in_time_order(env) -> None:
    """staged -> adopted -> rolled back, each an event with its time; the user's original
    is v1 and the candidate v2; `rollback --to 1` says it restored v1."""
    _write(env, V1)
    _promote(env, V2, "n1", skilldirs.text_hash(V1), managed=False)
    P.adopt(env["db"], env["config"], "review")
    P.rollback(env["db"], env["config"], "review", to_version=1)
    assert _skill(env).read_text() == V1
    events = P.history(env["db"], "review")
    assert [(e.event, e.version) for e in events] == [
        ("staged", 2), ("adopted", 2), ("rolled_back", 1)
    ]  # fmt: skip
    assert events[-1].reason == "rolled back: restored v1"
    assert [e.at for e in events] == sorted(e.at for e in events) and events[0].at
    assert version_text(env["config"], "review", 1) == V1
    assert version_text(env["config"], "review", 2) == V2
    # a rollback with nothing promoted any more is an event too, not a silent write
    P.rollback(env["db"], env["config"], "review", to_version=2)
    assert P.history(env["db"], "review")[-1].reason == "rolled back: restored v2"


def test_reject_and_superseded(env) -> None:
    _write(env, V1)
    _promote(env, V2, "n1", skilldirs.text_hash(V1), managed=False)
    _promote(env, V3, "n2", skilldirs.text_hash(V1), managed=False)
    assert [(e.event, e.night_id) for e in P.history(env["db"], "review")] == [
        ("staged", "n1"), ("superseded", "n2"), ("staged", "n2")
    ]  # fmt: skip
    (row,) = P.reject(env["db"], env["config"], "review")
    assert row["status"] == "rejected" and _skill(env).read_text() == V1
    assert P.history(env["db"], "review")[-1].event == "rejected"


def test_resumed_night_does_not_promote_twice(env) -> None:
    _promote(env, V1, "n1", None)
    again = _promote(env, V1, "n1", None)
    assert again.status == "promoted" and len(P.history(env["db"])) == 1
    dry = _promote(env, V2, "n2", skilldirs.text_hash(V1), dry_run=True)
    assert dry.status == "promoted" and _skill(env).read_text() == V1
    assert len(P.history(env["db"])) == 1


def _promote_named(env: dict[str, Any], name: str) -> P.PromotionOutcome:
    return P.promote(env["db"], env["config"], name, V1, night_id="n", base_hash=None,
                     managed=True, verdict=IMPROVED)  # fmt: skip


@pytest.mark.parametrize("name", ["..", "../evil", "/etc/passwd", "a/b", "", ".hidden", "a..b"])
def test_names_cannot_escape(env, name: str) -> None:
    with pytest.raises(skilldirs.SkillPathError):
        _promote_named(env, name)
    assert P.history(env["db"]) == []


def test_full_disk_leaves_no_half_written_skill(env, monkeypatch) -> None:
    _own(env, V1)

    real = files.write_all

    def full(fd: int, data: bytes) -> None:  # only the skill directory's disk is full
        if ".SKILL.md." not in os.readlink(f"/proc/self/fd/{fd}"):
            return real(fd, data)
        os.write(fd, data[:5])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "write_all", full)
    with pytest.raises(P.PromotionError, match="the disk is full") as caught:
        _promote(env, V2, "n1", skilldirs.text_hash(V1))
    assert _skill(env).read_text() == V1
    assert sorted(os.listdir(_skill(env).parent)) == ["SKILL.md"]
    assert caught.value.outcome.status == "staged"
    (row,) = P.pending(env["db"])  # nothing lost: the candidate waits for `adopt`
    monkeypatch.setattr(files, "write_all", real)
    P.adopt(env["db"], env["config"], "review")
    assert _skill(env).read_text() == V2


def test_full_state_disk_fails_before_touching_the_skill(env, monkeypatch) -> None:
    _write(env, V1)

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "write_all", full)
    with pytest.raises(P.PromotionError, match="the disk is full"):
        _promote(env, V2, "n1", skilldirs.text_hash(V1))
    assert _skill(env).read_text() == V1 and P.history(env["db"]) == []
    versions = config_mod.state_dir(env["config"]) / "skills" / "review" / "versions"
    assert not versions.exists() or list(versions.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_skill_dir(env) -> None:
    _own(env, V1)
    _skill(env).parent.chmod(0o555)
    try:
        with pytest.raises(P.PromotionError, match="permission denied"):
            _promote(env, V2, "n1", skilldirs.text_hash(V1))
        assert _skill(env).read_text() == V1
    finally:
        _skill(env).parent.chmod(0o755)


def test_read_only_file_system_message(env, monkeypatch) -> None:
    def rofs(path: Path) -> int:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(skilldirs, "_open_dir", rofs)
    with pytest.raises(P.PromotionError, match="read-only"):
        _promote(env, V1, "n1", None)
    assert not _skill(env).exists()
    assert P.pending(env["db"])[0]["status"] == "staged"


def test_cli_review_commands(env, tmp_path: Path) -> None:
    _write(env, V1)
    _promote(env, V2, "n1", skilldirs.text_hash(V1), managed=False)
    run = CliRunner().invoke
    state = ["--state-dir", str(config_mod.state_dir(env["config"]))]
    out = run(main, [*state, "diff", "review"])
    assert out.exit_code == 0 and "+- run the tests" in out.output
    out = run(main, [*state, "history", "--json"])
    assert out.exit_code == 0 and '"staged"' in out.output
    assert run(main, [*state, "adopt", "review"]).exit_code == 0
    assert _skill(env).read_text() == V2
    out = run(main, [*state, "rollback", "review"])
    assert out.exit_code == 0 and "restored v1" in out.output and _skill(env).read_text() == V1
    lines = run(main, [*state, "history", "review"]).output.splitlines()
    assert [ln.split()[2:4] for ln in lines] == [
        ["staged", "v2"], ["adopted", "v2"], ["rolled_back", "v1"]
    ]  # fmt: skip
    for args, msg in [
        (["adopt"], "NAME or --all"),
        (["reject", "review"], "no staged"),
        (["rollback", "../x"], "path separators"),
        (["diff", "nope"], "no staged"),
    ]:
        out = run(main, [*state, *args])
        assert out.exit_code == 2, out.output
        assert msg in out.output and "Traceback" not in out.output
        assert len(out.output.strip().splitlines()) == 1
    for cmd in ("adopt", "reject", "rollback", "diff", "history"):
        help_text = run(main, [cmd, "--help"]).output
        assert "Example" in help_text
