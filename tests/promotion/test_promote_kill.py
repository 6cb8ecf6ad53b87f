"""kill -9 at every write point of a promotion, an adopt and a rollback, then a resume in a
fresh process: the skill is the old or the new text (never neither, never a temp file
left), the version history is consistent, and `rollback` gives back the user's own bytes.

Each operation runs in tests/promotion_child.py on the real file system and SQLite; the
child counts its writes (file-system calls and COMMITs) and kills itself at the N-th. A
first run with no kill counts them, then N goes over every one of them.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep import promotion as P
from skillopt_sleep.promotion import dirs as skilldirs
from skillopt_sleep.promotion.verdict import Verdict
from skillopt_sleep.promotion.versions import version_text
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.store import open_store

PROJECT = Path(__file__).resolve().parents[2]
CHILD = PROJECT / "tests" / "promotion_child.py"
NAME = "review"
# the user's own bytes: CRLF line ends and a non-ASCII character must come back as they were
OLD = "---\r\nname: review\r\ndescription: Review a PR\r\n---\r\n- read the diff – all\r\n"
NEW = "---\nname: review\ndescription: Review a PR\n---\n- read the diff – all\n- run tests\n"


@dataclass
class World:
    root: Path  # holds skills/ and state/
    config: dict[str, Any]

    @property
    def skill(self) -> Path:
        return self.root / "skills" / NAME / "SKILL.md"

    def db(self) -> Any:
        return open_store(config_mod.state_dir(self.config))

    def on_disk(self) -> bytes | None:
        return self.skill.read_bytes() if self.skill.exists() else None

    def promote(self, db: Any, **kw: Any) -> P.PromotionOutcome:
        args = self.promote_args(**kw)  # JSON for the child; a Verdict in this process
        return P.promote(
            db, self.config, NAME, NEW, **{**args, "verdict": Verdict(**args["verdict"])}
        )

    def promote_args(self, **kw: Any) -> dict[str, Any]:
        improved = {"outcome": "improved", "action": "promote", "reason": ""}
        args = {"night_id": "n1", "base_hash": _hash(OLD), "managed": False, "verdict": improved}
        return {**args, **kw}


def _hash(text: str) -> str:
    return skilldirs.text_hash(text)


def _world(root: Path, **promotion: Any) -> World:
    (root / "skills").mkdir(parents=True)
    config = config_mod.load(
        overrides={
            "state_dir": str(root / "state"),
            "promotion.targets": [str(root / "skills")],
            **{f"promotion.{k}": v for k, v in promotion.items()},
        },
        environ={},
    )
    return World(root, config)


def _with_user_skill(world: World) -> World:
    world.skill.parent.mkdir(parents=True)
    world.skill.write_bytes(OLD.encode())
    return world


def promote_user_skill(root: Path) -> tuple[World, dict[str, Any]]:
    """The user's own skill, promoted without review (the user opted in)."""
    world = _with_user_skill(_world(root, auto_promote_user_skills=True))
    return world, {"op": "promote", "promote": {"new_text": NEW, **world.promote_args()}}


def promote_new_skill(root: Path) -> tuple[World, dict[str, Any]]:
    """A new managed skill's first version (nothing there before: 'old' is no file)."""
    world = _world(root, auto_promote_new_skills=True)
    args = world.promote_args(base_hash=None, managed=True)
    return world, {"op": "promote", "promote": {"new_text": NEW, **args}}


def adopt_staged(root: Path) -> tuple[World, dict[str, Any]]:
    world = _with_user_skill(_world(root))
    db = world.db()
    assert world.promote(db).status == "staged"
    db.close()
    return world, {"op": "adopt"}


def rollback_promoted(root: Path) -> tuple[World, dict[str, Any]]:
    world, _spec = promote_user_skill(root)
    db = world.db()
    assert world.promote(db).status == "promoted"
    db.close()
    return world, {"op": "rollback"}


SCENARIOS: dict[str, tuple[Callable[[Path], tuple[World, dict[str, Any]]], bytes | None]] = {
    # scenario -> (set-up, the original: what `rollback` must give back)
    "promote a user skill": (promote_user_skill, OLD.encode()),
    "promote a new skill": (promote_new_skill, None),
    "adopt": (adopt_staged, OLD.encode()),
    "rollback": (rollback_promoted, OLD.encode()),
}


def _child(world: World, spec: dict[str, Any], kill_at: int) -> subprocess.CompletedProcess:
    path = world.root / "spec.json"
    path.write_text(json.dumps({"config": world.config, "name": NAME, **spec}))
    out = world.root / "out.json"
    out.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    proc = subprocess.run(
        [sys.executable, str(CHILD), str(path), str(kill_at), str(out)],
        cwd=PROJECT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if kill_at:
        assert proc.returncode == -9, f"write {kill_at}: not killed\n{proc.stderr[-2000:]}"
    else:
        assert proc.returncode == 0, proc.stderr[-2000:]
        proc.stdout = out.read_text()
    return proc


def _temp_files(world: World) -> list[str]:
    return sorted(
        str(p.relative_to(world.root)) for p in world.root.rglob("*") if p.name.endswith(".tmp")
    )


def _check_history(world: World, at: str) -> None:
    """Every saved version's file holds the text of its hash; every decision names
    versions that exist, its previous hash is its previous version's, and its latest event
    is the state it is in."""
    db = world.db()
    try:
        for row in db["skill_versions"].rows:
            assert _hash(version_text(world.config, NAME, row["version"])) == row["hash"], at
        for row in db["promotions"].rows:
            assert _hash(version_text(world.config, NAME, row["version"])) == row["hash"], at
            prev = row["previous_version"]
            if prev is None:
                assert row["previous_hash"] is None, (at, row)
            else:
                assert _hash(version_text(world.config, NAME, prev)) == row["previous_hash"], (
                    at,
                    row,
                )
            events = [e.event for e in P.history(db, NAME) if e.promotion_id == row["id"]]
            assert events[-1] == row["status"] or (
                row["status"] == "rejected" and events[-1] == "superseded"
            ), (at, row, events)
    finally:
        db.close()


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_kill_at_any_write_then_a_resume_loses_nothing(tmp_path: Path, scenario: str) -> None:
    make, original = SCENARIOS[scenario]
    world, spec = make(tmp_path / "count")
    before = world.on_disk()
    writes = json.loads(_child(world, spec, 0).stdout)["writes"]
    after = world.on_disk()
    assert writes >= 5 and before != after  # the operation writes, and changes the skill
    for kill_at in range(1, writes + 1):
        world, spec = make(tmp_path / f"kill{kill_at}")
        _child(world, spec, kill_at)
        at = f"killed at write {kill_at} of {writes}"
        assert world.on_disk() in (before, after), at  # old or new, never neither or torn
        _child(world, spec, 0)  # the resume: a fresh process
        assert world.on_disk() == after, at
        assert _temp_files(world) == [], at
        _check_history(world, at)
        db = world.db()
        try:
            if spec["op"] == "promote":
                (row,) = db["promotions"].rows  # recorded once, with the user's text before it
                assert row["status"] == "promoted" and row["previous_hash"] == (
                    _hash(original.decode()) if original else None
                ), at
            if spec["op"] != "rollback":
                P.rollback(db, world.config, NAME)
        finally:
            db.close()
        assert world.on_disk() == original, at  # exactly the user's bytes (or no skill)
        assert _temp_files(world) == [], at
        _check_history(world, at)


def test_a_stale_temp_file_is_removed_by_the_next_write_only_when_its_writer_is_gone(
    tmp_path: Path,
) -> None:
    world = _with_user_skill(_world(tmp_path, auto_promote_user_skills=True))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stale = world.skill.parent / f".SKILL.md.{int(gone.stdout)}.tmp"
    live = world.skill.parent / f".SKILL.md.{os.getppid()}.tmp"  # a running process's
    odd = world.skill.parent / f".SKILL.md.{10**20}.tmp"  # no process can have that pid
    for path in (stale, live, odd):
        path.write_text("half a skill")
    db = world.db()
    try:
        assert world.promote(db).status == "promoted"
    finally:
        db.close()
    assert sorted(os.listdir(world.skill.parent)) == [live.name, "SKILL.md"]
    assert hashlib.sha256(world.skill.read_bytes()).hexdigest() == _hash(NEW)
