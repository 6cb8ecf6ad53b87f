"""Broken state directories for the error tests: a real store (a generated corpus ingested
and mined), the faults made on copies of it, and what a clean failure looks like.

As root, "another user's" state directory is owned by nobody and the command runs under
``setpriv`` without the capabilities that let root ignore permission bits; a read-only
file system is a bubblewrap read-only bind.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from skillopt_sleep.cli import main
from skillopt_sleep.cli.failures import CODES, PrintedError
from skillopt_sleep.health.doctor import Checks
from skillopt_sleep.running.lock import LOCK_NAME
from skillopt_sleep.store import db_path
from tests.night_helpers import PROJECT, env, make_root, write_yaml

NOBODY = 65534
TASK = "t-0000000000"  # no such task: the command gets as far as the store
# Every command that reads or writes the state directory, with --json where it has it.
# (`daemon` runs until stopped and `install` edits the crontab: not here.)
JSON_COMMANDS = [
    ["status", "--json"],
    ["status", "--brief", "--json"],
    ["nights", "--json"],
    ["report", "--json"],
    ["report", "--list", "--json"],
    ["sessions", "--json"],
    ["ingest", "--json"],
    ["tasks", "list", "--json"],
    ["tasks", "mine", "--json"],
    ["tasks", "show", TASK, "--json"],
    ["tasks", "replay", TASK, "--json"],
    ["history", "--json"],
    ["doctor", "--no-rollout", "--json"],
    ["run", "--dry-run", "--json"],
    ["run", "--once", "--json", "-q"],
]
PLAIN_COMMANDS = [["adopt", "x"], ["reject", "x"], ["rollback", "x"], ["diff", "x"]]


# -- a real store, and the faults --------------------------------------------------------
@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], bytes]:
    """The config of a 30-session corpus (simulated models) and its store's bytes after
    ingest and mining, checkpointed so the file holds every page."""
    root = tmp_path_factory.mktemp("corpus")
    cfg = make_root(root, user_skill=False, **{"night.max_skills": 1})
    path = write_yaml(root, cfg)
    for args in (["ingest", "-q"], ["tasks", "mine"]):
        result = CliRunner().invoke(main, ["--config", str(path), *args])
        assert result.exit_code == 0, result.output
    conn = sqlite3.connect(db_path(Path(cfg["state_dir"])))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return cfg, db_path(Path(cfg["state_dir"])).read_bytes()


def with_state(tmp_path: Path, corpus: tuple[dict[str, Any], bytes], **extra: Any) -> Path:
    """A config whose state directory (tmp_path/state) holds a copy of the corpus's store."""
    cfg, data = corpus
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    db_path(state).write_bytes(data)
    db_path(state).chmod(0o600)
    return write_yaml(tmp_path, {**cfg, "state_dir": str(state), **extra})


def lock_is_a_directory(state: Path) -> None:
    (state / LOCK_NAME).mkdir()


def nights_is_a_file(state: Path) -> None:
    (state / "nights").write_text("")


def database_is_a_directory(state: Path) -> None:
    db_path(state).unlink()
    db_path(state).mkdir()


def state_is_a_file(state: Path) -> None:
    shutil.rmtree(state)
    state.write_text("")


def pages_overwritten(state: Path) -> None:
    """Four pages in the middle of the file overwritten with 0xFF (a bad sector, say)."""
    data = bytearray(db_path(state).read_bytes())
    size = _page_size(data)
    middle = len(data) // size // 2
    data[middle * size : (middle + 4) * size] = b"\xff" * (4 * size)
    db_path(state).write_bytes(bytes(data))


def _page_size(data: bytes | bytearray) -> int:
    size = int.from_bytes(data[16:18], "big")
    return 65536 if size == 1 else size


def index_bit_flipped(state: Path) -> str:
    """One bit flipped in a key of a leaf page of ``turns``' session_id index; returns the
    session whose key it was. The b-tree stays well formed: only comparing the index with
    its table shows it."""
    conn = sqlite3.connect(db_path(state))
    (page,) = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'idx_turns_session_id'"
    ).fetchone()
    sessions = [r[0] for r in conn.execute("SELECT DISTINCT session_id FROM turns")]
    conn.close()
    data = bytearray(db_path(state).read_bytes())
    size = _page_size(data)
    while data[(page - 1) * size] == 0x02:  # an interior index page: go to its right-most child
        page = int.from_bytes(data[(page - 1) * size + 8 : (page - 1) * size + 12], "big")
    assert data[(page - 1) * size] == 0x0A, "not an index leaf page"
    leaf = bytes(data[(page - 1) * size : page * size])
    # a session id that is no other's prefix (a subagent's id can start with its parent's)
    own = [s for s in sessions if not any(o != s and o.startswith(s) for o in sessions)]
    session = next(s for s in own if s.encode() in leaf)
    data[(page - 1) * size + leaf.index(session.encode()) + len(session) - 1] ^= 0x01
    db_path(state).write_bytes(bytes(data))
    return session


FAULTS: dict[str, Callable[[Path], Any]] = {
    "lock-is-a-directory": lock_is_a_directory,
    "nights-is-a-file": nights_is_a_file,
    "database-is-a-directory": database_is_a_directory,
    "state-is-a-file": state_is_a_file,
    "pages-overwritten": pages_overwritten,
}


# -- what a clean failure looks like -----------------------------------------------------
def check_outcome(args: list[str], exit_code: int, stdout: str, stderr: str) -> str | None:
    """Fail the test unless the command succeeded or failed cleanly; the failure's code.

    Clean: no traceback; with --json one JSON object on stdout (``doctor`` prints its
    checks instead), the versioned ``error`` shape, with a known code and that code's exit
    status; else one ``Error:`` line on stderr."""
    where = f"{args}: exit {exit_code}\nstdout: {stdout[-2000:]}\nstderr: {stderr[-2000:]}"
    assert "Traceback" not in stdout + stderr, where
    if exit_code == 0:
        return None
    if "--json" not in args:
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), where
        return None
    if args[0] == "doctor" and stdout.lstrip().startswith('{\n  "version"'):
        assert any(c.status == "fail" for c in Checks.from_json(json.loads(stdout)).checks), where
        return None
    lines = stdout.strip().splitlines()
    assert len(lines) == 1, where
    printed = json.loads(lines[0])
    assert list(printed) == ["version", "error", "code"], where
    error = PrintedError.from_json(printed)
    assert error.to_json() == printed and error.code in CODES, where
    assert exit_code == CODES[error.code][0], where
    assert "\n" not in error.error and len(error.error) < 400, where
    return error.code


def invoke(config: Path, *args: str, **kw: Any) -> Result:
    return CliRunner().invoke(main, ["--config", str(config), *args], **kw)


def check(result: Result, args: list[str]) -> str | None:
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        result.exception,
    )
    return check_outcome(args, result.exit_code, result.stdout, result.stderr)


# Runs the sweep in a fresh process (under a prefix such as setpriv or bwrap): CliRunner
# over the commands, one JSON line of outcomes.
SWEEP = """
import json, sys
from click.testing import CliRunner
from skillopt_sleep.cli import main
out = []
for args in json.loads(sys.argv[2]):
    r = CliRunner().invoke(main, ["--config", sys.argv[1], *args])
    crashed = r.exception is not None and not isinstance(r.exception, SystemExit)
    out.append([args, r.exit_code, r.stdout, r.stderr + (repr(r.exception) if crashed else "")])
print(json.dumps(out))
"""


def sweep_in(prefix: list[str], config: Path) -> dict[str, str | None]:
    """Every command against ``config``'s state, in a process started under ``prefix``:
    {command: its failure's code}."""
    commands = [*JSON_COMMANDS, *PLAIN_COMMANDS]
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", SWEEP, str(config), json.dumps(commands)],
        capture_output=True,
        text=True,
        env=env(),
        cwd=PROJECT,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    outcomes = json.loads(proc.stdout.strip().splitlines()[-1])
    return {" ".join(a): check_outcome(a, code, out, err) for a, code, out, err in outcomes}


# -- another user's state directory, a read-only file system ----------------------------
def _bits_apply(tmp_path: Path) -> bool:
    """Whether this process is held to permission bits (root is not)."""
    probe = tmp_path / "probe"
    probe.mkdir(mode=0o500)
    try:
        (probe / "x").touch()
    except PermissionError:
        return True
    finally:
        probe.chmod(0o700)
    return False


def another_users(state: Path, mode: int, tmp_path: Path) -> list[str]:
    """Make ``state`` (mode ``mode``, its files the same without execute bits) another
    user's as far as the command is concerned; returns the command prefix that makes it
    so. As root: owned by nobody, run by ``setpriv`` without the capabilities that let
    root pass permission checks. Otherwise (no chown without root): the mode's bits for
    others become the owner's, which is what another user's directory gives us."""
    if os.geteuid() != 0:
        for path in state.rglob("*"):
            path.chmod((mode & 0o004) * 0o111)
        state.chmod((mode & 0o007) * 0o111)
        assert _bits_apply(tmp_path)
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root and setpriv is missing: root ignores permission bits")
    for path in state.rglob("*"):
        path.chmod(mode & 0o666)
    for path in [state, *state.rglob("*")]:
        os.chown(path, NOBODY, NOBODY)
    state.chmod(mode)
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner,-chown"]


def bwrap_works() -> bool:
    if shutil.which("bwrap") is None:
        return False
    probe = subprocess.run(["bwrap", "--bind", "/", "/", "--dev", "/dev", "true"],
                           capture_output=True, check=False)  # fmt: skip
    return probe.returncode == 0
