"""The light commands stay light: what `--help`, `--version`, `status` import.

Times are measured in benchmarks/startup.py, never asserted; this catches the regression
that makes them slow (a heavy library imported at the top of a command module).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from skillopt_sleep.cli import main
from skillopt_sleep.cli.root import COMMANDS
from skillopt_sleep.store import db_path, open_store

HEAVY = ["sklearn", "scipy", "numpy", "openai", "apscheduler", "sqlite_utils", "watchdog"]

# Runs the real root group in a fresh interpreter, then lists the heavy modules it loaded.
PROBE = """
import json, sys
from skillopt_sleep.cli import main
try:
    main(sys.argv[1:], prog_name="skillopt-sleep")
except SystemExit as exc:
    assert not exc.code, exc.code
heavy = json.loads({heavy!r})
print(json.dumps(sorted(h for h in heavy if h in sys.modules)))
"""


def loaded_heavy(*args: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=json.dumps(HEAVY)), *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "args", [["--help"], ["--version"], ["tasks", "--help"], ["tasks", "replay", "--help"]]
)
def test_help_and_version_import_no_heavy_library(args: list[str]) -> None:
    assert loaded_heavy(*args) == []


def test_status_on_an_existing_store_reads_without_sqlite_utils(tmp_path: Path) -> None:
    open_store(tmp_path).close()
    assert loaded_heavy("--state-dir", str(tmp_path), "status", "--json") == []


def test_status_on_a_store_without_tables_migrates_it_and_answers(tmp_path: Path) -> None:
    """The fast path cannot read an unmigrated store; the fallback creates the schema."""
    sqlite3.connect(db_path(tmp_path)).close()  # a valid, empty database
    result = CliRunner().invoke(main, ["--state-dir", str(tmp_path), "status", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["last_night"] is None
    with sqlite3.connect(db_path(tmp_path)) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert {"nights", "promotions"} <= tables


def test_every_lazy_command_resolves_to_a_command_of_that_name() -> None:
    ctx = click.Context(main)
    for name in COMMANDS:
        cmd = main.get_command(ctx, name)
        assert isinstance(cmd, click.Command) and cmd.name == name, name
        assert cmd.get_short_help_str(), name


def test_status_reading_a_store_keeps_its_files_private(tmp_path: Path) -> None:
    """The fast path opens the WAL side files itself (they vanish when the last writer
    closes): they are created 0600 like the store's."""
    open_store(tmp_path).close()
    for suffix in ("-wal", "-shm"):
        assert not Path(f"{db_path(tmp_path)}{suffix}").exists()
    reader = subprocess.run(
        [sys.executable, "-c", READ_AND_HOLD, str(tmp_path)], capture_output=True, text=True
    )
    assert reader.returncode == 0, reader.stderr
    modes = json.loads(reader.stdout)
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}, modes


# Under umask 022, open the store the way `status` does and report the side files' modes
# while the connection is still open.
READ_AND_HOLD = """
import json, os, sys
from pathlib import Path
from skillopt_sleep.store import db_path, open_for_reading
os.umask(0o022)
state = Path(sys.argv[1])
conn = open_for_reading(state)
modes = {s: os.stat(f"{db_path(state)}{s}").st_mode & 0o777 for s in ("", "-wal", "-shm")
         if os.path.exists(f"{db_path(state)}{s}")}
conn.close()
print(json.dumps(modes))
"""
