"""Where a mined task can be replayed in the agent harness, and what its session changed.

Per task (its request's session): the repository is the git toplevel of the session's
working directory when that is still on disk; the commit is the one the session started
from, from the log where it says (Codex `session_meta.git.commit_hash`), else the
branch's commit at the session's start in the local repository (Claude's logs name the
branch, never the commit), else the newest commit of any ref before the start. A task
whose repository is gone keeps its workspace (the report says it fell back to chat).

For a task whose repository is on disk (it replays in the agent harness, where tool use
is seen), it keeps the `command_ran` judges mining drew from the commands its kind's
sessions ran — they check that the replay ran the command, never that the answer
mentions it — and the files the accepted answer changed (Edit/Write/MultiEdit paths,
apply_patch headers, in the request's own turn) become `file_changed` judges. Any other
task is replayed as a chat: it loses those command judges (its rubric names the commands
as context) and keeps its other judges.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlite_utils

from skillopt_sleep.mining import encoded
from skillopt_sleep.mining.evidence import Request
from skillopt_sleep.mining.judges import COMMAND_SOURCE
from trainer.tasks import Judge

WRITE_TOOLS = ("edit", "write", "multiedit", "notebookedit")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
_SHA = re.compile(r"^[0-9a-f]{7,64}$")
FILE_JUDGE_WEIGHT = 0.5
MAX_FILE_JUDGES = 3


def _git(repo: str, *args: str) -> str | None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0", "HOME": os.devnull,
           "LC_ALL": "C"}  # fmt: skip
    try:
        done = subprocess.run(
            ["git", "-C", repo, *args], env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@lru_cache(maxsize=4096)
def repo_root(project: str) -> str | None:
    """The git toplevel of `project`, if that directory is still on disk and in a repo."""
    if not project or not Path(project).is_dir():
        return None
    return _git(project, "rev-parse", "--show-toplevel")


@lru_cache(maxsize=8192)
def commit_at(repo: str, branch: str, started_at: str) -> tuple[str | None, str]:
    """(commit, how it was found) for a session that started at `started_at` on `branch`."""
    before = f"--before={started_at}"
    if branch and branch != "HEAD":
        for ref in (f"refs/heads/{branch}", f"refs/remotes/origin/{branch}"):
            sha = _git(repo, "rev-list", "-1", before, ref)
            if sha:
                return sha, "branch at session start"
    sha = _git(repo, "rev-list", "-1", before, "--all")
    return (sha, "newest commit before session start") if sha else (None, "")


def _has_commit(repo: str, sha: str) -> bool:
    return _git(repo, "cat-file", "-e", f"{sha}^{{commit}}") is not None


def workspace_for(req: Request, logged_commit: str | None) -> tuple[dict | None, dict]:
    """(workspace or None, meta to keep: repo_on_disk, commit_from)."""
    root = repo_root(req.project)
    if root is None:
        if req.project and logged_commit and _SHA.match(logged_commit):
            ws = {"repo": req.project, "commit": logged_commit, "setup": []}
            return ws, {"repo_on_disk": False, "commit_from": "session log"}
        return None, {"repo_on_disk": False}
    if logged_commit and _SHA.match(logged_commit) and _has_commit(root, logged_commit):
        return {"repo": root, "commit": logged_commit, "setup": []}, {
            "repo_on_disk": True, "commit_from": "session log"}  # fmt: skip
    sha, how = commit_at(root, req.branch or "", req.started_at)
    if sha is None:
        return None, {"repo_on_disk": True}
    return {"repo": root, "commit": sha, "setup": []}, {"repo_on_disk": True, "commit_from": how}


def written_files(rows: Iterable[dict[str, Any]], cwd: str, root: str) -> list[str]:
    """Repository-relative paths the turn's successful write tools touched."""
    out: list[str] = []
    for row in rows:
        if row["is_error"]:
            continue
        name, args = (row["name"] or "").lower(), row["args_summary"] or ""
        if name in WRITE_TOOLS:
            paths = [args.strip()]
        elif name == "apply_patch" or "*** Begin Patch" in args:
            paths = [p.strip() for p in _PATCH_FILE.findall(args)]
        else:
            continue
        for p in paths:
            full = Path(p) if os.path.isabs(p) else Path(cwd) / p
            try:
                rel = os.path.relpath(os.path.normpath(full), root)
            except ValueError:
                continue
            if not rel.startswith("..") and rel not in out and rel != ".":
                out.append(rel)
    return out


def applies_in_chat(judge: dict[str, Any]) -> bool:
    """Whether a mined judge still applies to a task replayed as a chat: a judge of the
    commands the kind ran does not (a chat runs nothing; its rubric names them)."""
    return not (
        judge["kind"] == "command_ran" and str(judge.get("source", "")).startswith(COMMAND_SOURCE)
    )


def glob_literal(path: str) -> str:
    """A glob that matches exactly `path` (fnmatch's metacharacters bracketed)."""
    return re.sub(r"([*?\[])", r"[\1]", path)


def session_commits(db: sqlite_utils.Database) -> dict[str, str | None]:
    """Each session's logged commit, for ``attach``; what git said on an earlier run is
    forgotten (repositories come and go between runs of a daemon)."""
    repo_root.cache_clear()
    commit_at.cache_clear()
    return dict(db.execute("select id, git_commit from sessions").fetchall())


def attach(
    db: sqlite_utils.Database,
    task_rows: Iterable[dict],
    reqs: dict[str, Request],
    commits: dict[str, str | None],
) -> list[dict]:
    """The task rows, each given its workspace and, for an accepted request, the
    `file_changed` judges of what its answer wrote. A row's ``judges`` (dicts) and ``meta``
    come as objects and leave as their JSON columns, written once (they were written, read
    back here and written again; a kind's rows in them, ``encoded.EncodedRow``, are written
    from the JSON made once for the kind); rows are taken one at a time, so only the JSON of a
    cluster's tasks is held (as objects they were a third more at 100,000 sessions).
    ``commits``: ``session_commits``."""
    out = []
    for row in task_rows:
        _attach(db, row, reqs[row["turn_id"]], commits)
        out.append(row)
    return out


def _attach(
    db: sqlite_utils.Database, row: dict, req: Request, commits: dict[str, str | None]
) -> None:
    ws, info = workspace_for(req, commits.get(req.session_id))
    row["workspace"] = json.dumps(ws) if ws else None
    row["meta"] = encoded.dumps({**row["meta"], **info})
    judges = row["judges"]
    if ws is None or not info.get("repo_on_disk"):
        # replayed as a chat: no judge of what was run
        row["judges"] = encoded.dumps([j for j in judges if applies_in_chat(j)])
        return
    if not req.accepted or req.failed:
        row["judges"] = encoded.dumps(judges)
        return
    calls = db.query(
        "select name, args_summary, is_error from tool_calls where turn_id = ? order by idx",
        [req.turn_id],
    )
    files = written_files(calls, req.project, ws["repo"])[:MAX_FILE_JUDGES]
    source = f"turn {req.turn_id}: the accepted answer changed it"
    judges += [
        Judge("file_changed", glob_literal(f), FILE_JUDGE_WEIGHT, source).to_dict() for f in files
    ]
    row["judges"] = encoded.dumps(judges)
