"""The session generator written apart (benchmarks/sessions/APART.md) writes logs the real
ingest reads as the tools' own: the same bytes for a seed, files only the user can read, and
every request and follow-up of its ground truth found in the store as a turn, in order. Its
mining figures are the benchmark's (benchmarks/mining.py), not asserted here."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from benchmarks import mining_sessions
from benchmarks.sessions.apart import write
from benchmarks.sessions.apart_data import KINDS
from benchmarks.sessions.apart_oneoff import TEMPLATES


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + p.read_bytes())
    return h.hexdigest()


def test_same_seed_same_bytes_and_only_the_user_reads_the_logs(tmp_path: Path) -> None:
    a, b, c = (write(tmp_path / name, seed, 40) for name, seed in (("a", 5), ("b", 5), ("c", 6)))
    assert a == b != c
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b") != _digest(tmp_path / "c")
    modes = {p.stat().st_mode & 0o777 for p in (tmp_path / "a").rglob("*.jsonl")}
    assert modes == {0o600}


def test_every_request_of_the_truth_is_a_turn_of_the_ingested_store(tmp_path: Path) -> None:
    info = mining_sessions.prepare("apart", 0, 300, tmp_path)
    truth = json.loads((tmp_path / "truth.json").read_text())
    first = [r for r in truth["requests"] if not r["follow_up"]]
    assert set(truth["kinds"]) == set(KINDS) and info["turns"] >= len(truth["requests"])
    assert {r["kind"] for r in first} - {None} == set(KINDS)
    one_offs = [r["one_off"] for r in first if r["kind"] is None]
    assert len(set(one_offs)) == len(one_offs) < len(TEMPLATES)  # none asked twice at 300
    invoked = Counter(r["kind"] for r in first if r["skill"])
    assert set(invoked) == {k for k, v in KINDS.items() if v["skill"]}

    row = mining_sessions.mine_and_score(tmp_path)
    assert row["requests_without_turn"] == 0
    assert row["requests"] == len(first)
