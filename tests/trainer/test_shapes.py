"""Every stored or printed JSON shape carries a version and is read through one upgrade per
shape (trainer/shapes.py): a copy an older release wrote reads as today's, a copy from a
newer release is refused with one line, and what is written reads back unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillopt_sleep.cli import main
from skillopt_sleep.night.store import Checkpoints, SqliteLedger
from skillopt_sleep.store import open_store
from trainer.cache import JsonLedger
from trainer.edits import Edit, edit_set_hash
from trainer.shapes import (
    CHECKPOINT,
    CURRENT,
    EVIDENCE,
    LEDGER,
    PRINTED,
    RUN,
    STEPS,
    STREAM,
    SUMMARY,
    ShapeError,
    stamp,
    unstamped,
    upgrade,
)
from trainer.state import RunState

# A gate result as release 1 wrote it: the tasks that differed were `n_nonzero`.
OLD_GATE = {"verdict": "reject", "n_tasks": 20, "n_nonzero": 3, "effect": -0.02}
NEW_GATE = {"verdict": "reject", "n_tasks": 20, "n_differ": 3, "effect": -0.02}
# Where each shape holds gate results, as release 1 wrote it (no "version").
OLD = {
    SUMMARY: {"night": "n1", "skills": [{"name": "s", "edits": [{"gate": OLD_GATE}]}]},
    CHECKPOINT: {"skill": "s", "history": [{"evidence": OLD_GATE}], "rejected": []},
    LEDGER: {"status": "rejected", "edit_hash": "h", "evidence": OLD_GATE},
    EVIDENCE: {"test": {"lift": 0.1}, "edits": [{"gate": OLD_GATE}]},
    STREAM: {"sweeps": [[1.0, 0.5]]},
    RUN: {"stop_reason": "done", "test": {"lift": 0.0}},
    # what a command's --json printed (tests/cli/test_cli_versions.py runs each command)
    **{shape: {"printed": shape} for shape in PRINTED},
}


def test_every_shape_has_a_version_and_a_copy_from_version_1_has_a_path_to_it() -> None:
    assert set(OLD) == set(STEPS) == set(CURRENT)
    for shape, old in OLD.items():
        before = json.dumps(old)
        now = upgrade(shape, old)
        assert now["version"] == CURRENT[shape]
        assert "n_nonzero" not in json.dumps(now)  # the old name is gone everywhere
        if "n_nonzero" in before:
            assert json.dumps(NEW_GATE, sort_keys=True)[1:-1] in json.dumps(now, sort_keys=True)
        assert json.dumps(old) == before  # the stored copy is not changed in place
        # today's copy reads back as it was written
        assert upgrade(shape, stamp(shape, unstamped(shape, old))) == now


def test_a_copy_from_a_newer_release_or_not_a_shape_is_refused() -> None:
    with pytest.raises(ShapeError, match=r"version 99, newer .* upgrade skillopt-sleep"):
        upgrade(SUMMARY, {"version": 99, "night": "n"})
    for bad in ("two", 0, True, None):
        with pytest.raises(ShapeError, match="not a whole number"):
            upgrade(LEDGER, {"version": bad})
    with pytest.raises(ShapeError, match="not a JSON object"):
        upgrade(EVIDENCE, ["not", "an", "object"])


def test_checkpoints_and_ledgers_write_the_version_and_read_older_rows(tmp_path: Path) -> None:
    db = open_store(tmp_path / "state")
    steps = Checkpoints(db, "n1")
    steps.finish("train:s", {"skill": "s", "history": []})
    (stored,) = db.execute("SELECT result FROM night_steps").fetchone()
    assert json.loads(stored)["version"] == CURRENT[CHECKPOINT]
    assert steps.done("train:s") == {"skill": "s", "history": []}  # as the step wrote it
    db.execute(  # a checkpoint release 1 wrote
        "UPDATE night_steps SET result = ? WHERE step = 'train:s'", [json.dumps(OLD[CHECKPOINT])]
    )
    assert steps.done("train:s")["history"] == [{"evidence": NEW_GATE}]

    ledger = SqliteLedger(db, "s", "n1")
    ledger.add("h2", {"status": "pending", "edit_hash": "h2", "evidence": NEW_GATE})
    with db.conn:
        db.execute(
            "INSERT INTO edits (hash, skill, night_id, record, created_at, kind) "
            "VALUES ('h', 's', 'n0', ?, '2026', 'rejected')",
            [json.dumps(OLD[LEDGER])],
        )
    assert [r.to_dict()["evidence"] for r in ledger.recent(5)] == [NEW_GATE, NEW_GATE]
    assert all("version" not in r.to_dict() for r in ledger.recent(5))
    ledger.keep_stream("k", {"sweeps": [[1.0]]})
    assert ledger.stream("k") == {"sweeps": [[1.0]]}
    assert json.loads(db.execute("SELECT record FROM streams").fetchone()[0])["version"] == 1


def test_a_json_ledger_file_carries_versions_and_reads_an_older_one(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps([OLD[LEDGER]]))  # release 1: a bare list of records
    ledger = JsonLedger(path)
    assert ledger.recent(1)[0].evidence == NEW_GATE
    ledger.add("h3", {"status": "rejected"})
    saved = json.loads(path.read_text())
    assert [r["version"] for r in saved["edits"]] == [CURRENT[LEDGER]] * 2
    assert [r.edit_hash for r in JsonLedger(path).recent(5)] == ["h3", "h"]


def _store_with_night(tmp_path: Path, summary: dict) -> Path:
    state = tmp_path / "state"
    db = open_store(state)
    db["nights"].insert(
        {"id": "2026-01-01T00-00-00Z", "status": "done", "dry_run": 0, "started_at": "2026",
         "finished_at": "2026", "summary": json.dumps(summary)}
    )  # fmt: skip
    db.close()
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"state_dir: {state}\n")
    return cfg


def test_the_report_of_an_older_night_is_printed_in_today_s_shape(tmp_path: Path) -> None:
    old = {"night": "2026-01-01T00-00-00Z", "status": "done", "skills": [
        {"name": "s", "outcome": "unchanged", "edits": [{"gate": OLD_GATE}]}]}  # fmt: skip
    cfg = _store_with_night(tmp_path, old)
    result = CliRunner().invoke(main, ["--config", str(cfg), "report", "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed["version"] == CURRENT[SUMMARY]
    assert printed["skills"][0]["edits"][0]["gate"] == NEW_GATE


def test_a_night_a_newer_release_wrote_is_one_clear_line_not_a_traceback(tmp_path: Path) -> None:
    cfg = _store_with_night(tmp_path, {"version": CURRENT[SUMMARY] + 1, "night": "n"})
    result = CliRunner().invoke(main, ["--config", str(cfg), "report", "--json"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    error = json.loads(result.output)
    assert error["code"] == "database_incompatible" and "upgrade skillopt-sleep" in error["error"]


def test_a_run_s_ledger_records_are_one_typed_record_stored_as_the_ledger_shape(
    tmp_path: Path,
) -> None:
    """A run's rejection and pending edit (trainer/state.py's LedgerRecord) go into the
    store's ledger and read back with every field the next night reads."""
    db = open_store(tmp_path / "state")
    ledger = SqliteLedger(db, "s", "n1")
    state = RunState(ledger)
    rejected, held = [Edit("add", "- Be brief.")], [Edit("add", "- Name the module.")]
    state.reject(rejected, "gate: reject (worse)", "epoch 0 step 0", "a", NEW_GATE)
    comparison = {"from_hash": "a", "to_hash": "b", "val_digest": "v", "alpha": 0.05,
                  "runs": ["night-1"], "evidence": NEW_GATE, "scores": {"pairs": []}}  # fmt: skip
    state.hold(held, "epoch 0 step 1", "gate: pending (e 3 of 20)", comparison)
    listed = [r.listed() for r in state.rejected]
    assert listed == [{"where": "epoch 0 step 0", "reason": "gate: reject (worse)",
                       "edits": [rejected[0].to_dict()], "edit_hash": edit_set_hash(rejected),
                       "skill_hash": "a", "evidence": NEW_GATE}]  # fmt: skip
    state.flush("a")
    stored = {r.status: r for r in ledger.recent(5)}
    rejected_record = state.rejected[0].listed() | {
        "status": "rejected",
        "text": "add: - Be brief.",
    }
    assert stored["rejected"].to_dict() == rejected_record
    # what is read back is the very record the run put together
    assert sorted(stored.values(), key=repr) == sorted(state.entries.values(), key=repr)
    pending = stored["pending"]
    assert pending == ledger.pending()[0]
    assert pending.comparison == comparison
    assert list(pending.edits) == [held[0].to_dict()] and pending.skill_hash == "a"
    assert pending.text == "add: - Name the module."
    (row,) = db.execute("SELECT record FROM edits WHERE kind = 'pending'").fetchone()
    assert json.loads(row)["version"] == CURRENT[LEDGER]


def test_a_ledger_record_reads_back_whole_whatever_keys_it_holds(tmp_path: Path) -> None:
    """A key the typed record does not name (an older release's) is kept in its
    comparison and written back; a pending record's evidence stays in its comparison."""
    path = tmp_path / "ledger.json"
    pending = {"status": "pending", "edit_hash": "p", "where": "epoch 0 step 1", "reason": "",
               "edits": [{"kind": "add", "text": "- x"}], "text": "add: - x",
               "from_hash": "a", "runs": ["n1"], "evidence": NEW_GATE}  # fmt: skip
    rejected = {"status": "rejected", "edit_hash": "r", "where": "", "reason": "gate",
                "edits": [], "text": "", "evidence": NEW_GATE, "note": "kept"}  # fmt: skip
    path.write_text(json.dumps({"edits": [pending, rejected]}))
    ledger = JsonLedger(path)
    (held,) = ledger.pending()
    assert held.evidence is None and held.comparison == {"from_hash": "a", "runs": ["n1"],
                                                         "evidence": NEW_GATE}  # fmt: skip
    newest = ledger.recent(1)[0]
    assert newest.evidence == NEW_GATE and newest.comparison == {"note": "kept"}
    assert [r.to_dict() for r in ledger.recent(2)] == [rejected, pending]
