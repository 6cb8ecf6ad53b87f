"""Mined tasks carry the workspace their session started from, and judges from what the
sessions did: commands that had to run (`command_ran`), files an accepted answer changed
(`file_changed`)."""

from __future__ import annotations

import fnmatch
import os
import subprocess
from pathlib import Path

import pytest
from mining_helpers import CONFIG, seed, store

from skillopt_sleep.mining import load_tasks, mine
from skillopt_sleep.mining.judges import command_regex
from trainer.tasks import OUTCOME_JUDGES, TaskWorkspace


def commit(repo: Path, name: str, when: str) -> str:
    (repo / name).write_text(when)
    env = {"PATH": os.environ["PATH"], "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@example.com", "GIT_AUTHOR_DATE": when,
           "GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@example.com",
           "GIT_COMMITTER_DATE": when}  # fmt: skip
    for args in (["add", "-A"], ["commit", "-q", "-m", name]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, env=env, check=True,
                         capture_output=True, text=True)  # fmt: skip
    return out.stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    repo = tmp_path / "demo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    old = commit(repo, "a.txt", "2026-02-20T12:00:00Z")
    new = commit(repo, "b.txt", "2026-03-04T12:00:00Z")
    return repo, old, new


def test_tasks_get_the_commit_their_session_started_from(tmp_path: Path, repo) -> None:
    root, old, new = repo
    db = store(tmp_path)
    seed(db)  # sessions sess-001..009 on 2026-03-01..09, 10:00
    with db.conn:  # the sessions worked in a subdirectory of the repository
        db.execute("update sessions set project = ?", [str(root / "src")])
        db.execute("update sessions set source = 'codex', git_commit = ? where id = 'sess-009'",
                   [old])  # fmt: skip
    mine(db, CONFIG)
    tasks = load_tasks(db)
    assert len({t.meta["session_id"] for t in tasks}) >= 4
    for t in tasks:
        sid = t.meta["session_id"]
        day = int(sid[-3:])
        logged = sid == "sess-009"  # Codex said which commit it started from: that wins
        expect = old if logged or day <= 4 else new
        assert t.workspace == TaskWorkspace(str(root), expect), sid
        assert t.meta["repo_on_disk"] is True
        assert t.meta["commit_from"] == ("session log" if logged else "branch at session start")


def test_a_gone_repository_keeps_only_a_logged_commit(tmp_path: Path) -> None:
    db = store(tmp_path)
    seed(db)
    gone = "0123456789abcdef0123456789abcdef01234567"
    with db.conn:
        db.execute("update sessions set project = '/nowhere/demo'")
        db.execute("update sessions set git_commit = ? where id = 'sess-002'", [gone])
    mine(db, CONFIG)
    for t in load_tasks(db):
        assert t.meta["repo_on_disk"] is False
        if t.meta["session_id"] == "sess-002":
            assert t.workspace == TaskWorkspace("/nowhere/demo", gone)
        else:  # nothing says which commit: no workspace, replayed as a chat
            assert t.workspace is None


def test_judges_come_from_what_the_sessions_did(tmp_path: Path, repo) -> None:
    root, _old, _new = repo
    db = store(tmp_path)
    seed(db)
    with db.conn:
        db.execute("update sessions set project = ?", [str(root)])
    mine(db, CONFIG)
    task = next(t for t in load_tasks(db) if "regression" in t.prompt)
    regression, session = task.meta["turn_id"], task.meta["session_id"]
    calls = [
        ("Write", str(root / "tests" / "test_[api].py"), 0),
        ("Edit", str(root / "src" / "app.py"), 0),
        ("Write", "/etc/hosts", 0),  # outside the repository
        ("Edit", str(root / "README.md"), 1),  # failed: not a change
    ]
    with db.conn:
        for i, (name, path, err) in enumerate(calls):
            db["tool_calls"].insert({"id": f"{regression}:w{i}", "turn_id": regression,
                                     "session_id": session, "idx": 10 + i, "name": name,
                                     "args_summary": path, "is_error": err})  # fmt: skip
    mine(db, CONFIG)
    tasks = {t.meta["turn_id"]: t for t in load_tasks(db)}
    mine_task = tasks[regression]
    globs = [j.value for j in mine_task.judges if j.kind == "file_changed"]
    assert [g for g in globs if fnmatch.fnmatchcase("tests/test_[api].py", g)] == globs[:1]
    assert [fnmatch.fnmatchcase("src/app.py", g) for g in globs] == [False, True]
    others = [t for tid, t in tasks.items() if tid != regression]
    assert not any(j.kind == "file_changed" for t in others for j in t.judges)
    # with a workspace, the command every session of the kind ran is checked on what the
    # replay runs, never on whether the answer mentions it
    commit_tasks = [t for t in tasks.values() if "commit" in t.prompt]
    assert commit_tasks
    for t in commit_tasks:
        kinds = {(j.kind, j.value) for j in t.judges}
        assert ("command_ran", command_regex("git diff")) in kinds
        assert ("contains", "git diff") not in kinds


def test_a_task_replayed_as_a_chat_is_never_judged_on_the_commands_its_kind_ran(
    tmp_path: Path,
) -> None:
    """A chat cannot run `git diff`: the command is context for the rubric, never a word
    check on the answer nor an outcome judge that would not apply."""
    db = store(tmp_path)
    seed(db)  # the sessions' repository (/home/u/demo) is not on this machine
    mine(db, CONFIG)
    commit_tasks = [t for t in load_tasks(db) if "commit" in t.prompt]
    assert commit_tasks and all(t.workspace is None for t in commit_tasks)
    for t in commit_tasks:
        assert not any("git diff" in j.value or j.kind in OUTCOME_JUDGES
                       for j in t.judges if j.kind != "rubric")  # fmt: skip
        (rubric,) = [j for j in t.judges if j.kind == "rubric"]
        assert "the user's own sessions of this kind ran: `git diff`" in rubric.value
        assert any(j.kind in ("max_chars", "not_contains") for j in t.judges)  # the user's rules
