"""Every ``--json`` a command prints as one object carries the version of its shape
(trainer/shapes.py) and reads back through its typed object: ``from_json`` of what was
printed writes the same JSON again, reads back equal, and refuses a newer release's copy.
A printed list is not wrapped (``jq '.[1].id'`` keeps working): each of its items is a
versioned shape of its own, and so is the error a failing command prints. The commands run
for real (click's CliRunner, and as a process) on the store a simulated night left."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillopt_sleep.cli import main
from skillopt_sleep.cli.check import CheckResult
from skillopt_sleep.cli.failures import CODES, PrintedError
from skillopt_sleep.health.doctor import Checks
from skillopt_sleep.health.status import ListedNight, Status
from skillopt_sleep.mining.printed import ClusterList, MiningRun, ShownCluster, ShownTask
from skillopt_sleep.night.model import DryRun, NightOutcome
from skillopt_sleep.night.run import run_night
from skillopt_sleep.promotion.versions import History
from skillopt_sleep.report.document import NightSummary
from skillopt_sleep.settings.logs import ListedSession, ingest_from_json, ingest_json
from tests.cli_helpers import console_script
from tests.night.test_night_promotion import USER, with_user_skill
from tests.night_helpers import env, write_yaml
from tests.sim_helpers import competent_roles
from trainer.shapes import (
    CHECK,
    CLUSTER,
    CLUSTERS,
    CURRENT,
    DOCTOR,
    DRY_RUN,
    ERROR,
    HISTORY,
    INGEST,
    LISTED_NIGHT,
    LISTED_SESSION,
    MINING,
    STATUS,
    SUMMARY,
    TASK,
    ShapeError,
)


class _Ingest:  # the ingest pass is session_ingest's IngestReport: read and written here
    from_json = staticmethod(ingest_from_json)
    to_json = staticmethod(ingest_json)


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A night over the user's own add-regression-test skill (staged for review: the
    simulated night's edits win on it) and its mined tasks: the config file and the ids the
    commands are asked about."""
    root = tmp_path_factory.mktemp("night")
    config = with_user_skill(root)
    outcome = run_night(config, progress=lambda _m: None, roles_factory=competent_roles)
    assert outcome.status == "done"
    cfg = write_yaml(root, config)
    clusters = json.loads(_run(cfg, "tasks", "list", "--json").output)["clusters"]
    recurring = next(c for c in clusters if c["recurring"])
    return cfg, {"cluster": recurring["id"], "task": recurring["tasks"][0]["id"]}


def _run(cfg: Path, *args: str, exit_codes: tuple[int, ...] = (0,)) -> Any:
    result = CliRunner().invoke(main, ["--config", str(cfg), *args])
    assert result.exit_code in exit_codes, (args, result.output)
    return result


# command (with {cluster} and {task} filled in), the shape it prints, its reader
COMMANDS: list[tuple[list[str], str, Any]] = [
    (["status", "--json"], STATUS, Status),
    (["run", "--once", "--dry-run", "--json", "-q"], DRY_RUN, DryRun),
    (["ingest", "--json"], INGEST, _Ingest),
    (["doctor", "--json"], DOCTOR, Checks),
    (["tasks", "mine", "--json"], MINING, MiningRun),
    (["tasks", "list", "--json"], CLUSTERS, ClusterList),
    (["tasks", "show", "{cluster}", "--json"], CLUSTER, ShownCluster),
    (["tasks", "show", "{task}", "--json"], TASK, ShownTask),
    (["tasks", "check", "{task}", "--answer-text", "Fix the parser", "--json"], CHECK,
     CheckResult),
]  # fmt: skip


def _round_trips(printed: dict[str, Any], shape: str, reader: Any) -> Any:
    assert next(iter(printed)) == "version" and printed["version"] == CURRENT[shape]
    read = reader.from_json(printed)
    again = reader.to_json(read) if reader is _Ingest else read.to_json()
    assert again == printed  # every key and value the command printed, nothing else
    assert reader.from_json(again) == read
    with pytest.raises(ShapeError, match=rf"{shape} is version {CURRENT[shape] + 1}, newer"):
        reader.from_json({**printed, "version": CURRENT[shape] + 1})
    return read


@pytest.mark.parametrize(("args", "shape", "reader"), COMMANDS, ids=[s for _, s, _ in COMMANDS])
def test_each_json_output_carries_its_version_and_round_trips(
    night: tuple[Path, dict[str, Any]], args: list[str], shape: str, reader: Any
) -> None:
    cfg, ids = night
    # a check exits 1 when the answer fails a judge, doctor when a check fails
    result = _run(cfg, *[a.format(**ids) for a in args], exit_codes=(0, 1))
    read = _round_trips(json.loads(result.stdout), shape, reader)
    facts: dict[str, Callable[[Any], bool]] = {
        STATUS: lambda s: s.last_night.status == "done" and s.budget_used.calls > 0,
        DRY_RUN: lambda d: d.mining["recurring"] >= 1 and d.ingest.sessions == 30,
        INGEST: lambda r: r.sessions == 30 and r.new_sessions == 0,
        DOCTOR: lambda c: {"config", "store", "permissions"} <= {x.what for x in c.checks},
        MINING: lambda m: m.result.n_recurring >= 1,
        CLUSTERS: lambda c: ids["cluster"] in {x.id for x in c.clusters},
        CLUSTER: lambda c: c.cluster.id == ids["cluster"] and c.cluster.recurring,
        TASK: lambda t: t.task.id == ids["task"] and t.task.judges,
        CHECK: lambda c: c.task == ids["task"] and len(c.judges) >= 1,
    }
    assert facts[shape](read)


# a command printing a list, the shape of each item, the items' reader
LISTS: list[tuple[list[str], str, Any]] = [
    (["nights", "--json"], LISTED_NIGHT, ListedNight),
    (["report", "--list", "--json"], LISTED_NIGHT, ListedNight),
    (["sessions", "--json"], LISTED_SESSION, ListedSession),
]


@pytest.mark.parametrize(("args", "shape", "reader"), LISTS, ids=[" ".join(a) for a, _, _ in LISTS])
def test_each_item_of_a_printed_list_carries_its_version_and_round_trips(
    night: tuple[Path, dict[str, Any]], args: list[str], shape: str, reader: Any
) -> None:
    cfg, _ = night
    printed = json.loads(_run(cfg, *args).stdout)
    assert isinstance(printed, list) and printed  # a list still: `jq '.[1].id'` works
    read = [_round_trips(item, shape, reader) for item in printed]
    assert [r.to_json() for r in read] == printed
    if shape == LISTED_NIGHT:  # the simulated night, finished, with the report's answer
        assert [(n.status, bool(n.headline)) for n in read] == [("done", True)]
    else:  # the 30 ingested sessions, newest first, each with its turns
        assert len(read) == 30 and all(s.turns >= 1 for s in read)
        assert [s.started for s in read] == sorted((s.started for s in read), reverse=True)


# a failing command, its code, a word its message must name
FAILURES: list[tuple[list[str], str, str]] = [
    (["tasks", "show", "t-0000000000", "--json"], "invalid_input", "t-0000000000"),
    (["report", "2026-01-01T02-00-00Z", "--json"], "invalid_input", "did you mean"),
    (["nights", "--json", "--bogus"], "usage", "--bogus"),
]


@pytest.mark.parametrize(("args", "code", "said"), FAILURES, ids=["task", "night", "usage"])
def test_the_error_a_failing_command_prints_carries_its_version_and_round_trips(
    night: tuple[Path, dict[str, Any]], args: list[str], code: str, said: str
) -> None:
    cfg, _ = night
    result = _run(cfg, *args, exit_codes=(CODES[code][0],))
    assert result.stdout.count("\n") == 1  # one line
    read = _round_trips(json.loads(result.stdout), ERROR, PrintedError)
    assert read.code == code and said in read.error


def test_history_prints_its_events_under_a_version_and_each_keeps_the_skills_version(
    night: tuple[Path, dict[str, Any]],
) -> None:
    """``history --json`` is one versioned object: its events' own ``version`` is the
    skill's, the number ``rollback --to`` takes, so the shape's version sits above them."""
    cfg, _ = night
    printed = json.loads(_run(cfg, "history", "--json").stdout)
    read = _round_trips(printed, HISTORY, History)
    (staged,) = [e for e in read.events if e.event == "staged"]
    assert staged.name == USER and staged.version == 2  # v1: the user's text
    assert printed["events"][-1]["version"] == read.events[-1].version


def test_a_pending_review_is_in_status_and_reads_back(night: tuple[Path, dict[str, Any]]) -> None:
    cfg, _ = night
    status = Status.from_json(json.loads(_run(cfg, "status", "--json").stdout))
    history = History.from_json(json.loads(_run(cfg, "history", "--json").stdout))
    staged = [e.name for e in history.events if e.event == "staged"]
    assert staged == [USER]  # the user's own skill waits for review
    assert [r.name for r in status.pending_reviews] == staged


def test_the_installed_script_prints_versioned_json(night: tuple[Path, dict[str, Any]]) -> None:
    cfg, ids = night
    exe = str(console_script())
    for args, shape, reader in [
        (["status", "--json"], STATUS, Status),
        (["tasks", "show", ids["task"], "--json"], TASK, ShownTask),
    ]:
        proc = subprocess.run([exe, "--config", str(cfg), *args], capture_output=True,
                              text=True, env=env(), timeout=120)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        _round_trips(json.loads(proc.stdout), shape, reader)


def test_a_stopped_night_prints_a_summary_with_only_its_id_and_status() -> None:
    printed = NightOutcome("2026-01-01T02-00-00Z", "stopped").to_json()
    assert printed == {"version": CURRENT[SUMMARY], "night": "2026-01-01T02-00-00Z",
                       "status": "stopped"}  # fmt: skip
    read = NightSummary.from_json(printed)
    assert (read.night, read.status, read.skills) == ("2026-01-01T02-00-00Z", "stopped", ())
