# ruff: noqa: E501 - log records stay one per line, as in the real files
"""Incremental ingest: byte offsets, partial lines, growth, shrink/replace, pieces == whole."""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_helpers import CLAUDE, all_fixture_files, dump, lay_out, query, run

FILES = all_fixture_files()


@cache
def _whole(index: int) -> dict[str, list[str]]:
    """Database content after ingesting fixture ``index`` in one pass."""
    src, rel = FILES[index]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        dst = home / rel
        dst.parent.mkdir(parents=True)
        shutil.copyfile(src, dst)
        run(home)
        return dump(home)


def _pieces(index: int, cuts: list[int]) -> dict[str, list[str]]:
    src, rel = FILES[index]
    data = src.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        dst = home / rel
        dst.parent.mkdir(parents=True)
        dst.write_bytes(b"")
        done = 0
        for cut in [*sorted(cuts), len(data)]:
            with open(dst, "ab") as fh:
                fh.write(data[done:cut])
            done = max(done, cut)
            run(home)
        return dump(home)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pieces_equal_whole_at_any_split_points(data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(FILES) - 1), label="fixture")
    size = FILES[index][0].stat().st_size
    cuts = data.draw(st.lists(st.integers(0, size), max_size=4), label="cuts")
    assert _pieces(index, cuts) == _whole(index)


def test_every_line_boundary_split_of_a_subagent_file(tmp_path: Path) -> None:
    # splits exactly at and around line ends of a file with streaming splits and tool results
    index = next(i for i, (src, _r) in enumerate(FILES) if src.name.startswith("5c0375b4"))
    data = FILES[index][0].read_bytes()
    ends = [i + 1 for i, b in enumerate(data) if b == 10][:6]
    assert _pieces(index, ends + [e - 1 for e in ends]) == _whole(index)


def test_partial_last_line_waits(tmp_path: Path) -> None:
    src = (
        CLAUDE
        / "04_v2.0.64_project-level-agent-file/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    )  # noqa: E501
    data = src.read_bytes()
    home = tmp_path / "home"
    dst = home / ".claude/projects/-tmp-private" / src.name
    dst.parent.mkdir(parents=True)
    first_end = data.index(b"\n", data.index(b"create hello.py")) + 1
    dst.write_bytes(data[: first_end + 50])  # one complete user line + half of the next
    run(home)
    assert query(home, "SELECT offset, size FROM files")[0] == (first_end, first_end + 50)
    assert query(home, "SELECT user_text FROM turns") == [("create hello.py, md and js",)]
    dst.write_bytes(data)
    run(home)
    assert query(home, "SELECT count(*) FROM turns")[0][0] == 3


def test_growing_session_turn1_then_turn2(tmp_path: Path) -> None:
    # 06: turn-1.jsonl is a byte-exact prefix of turn-2.jsonl: the same file, captured twice
    pair = CLAUDE / "06_v2.1.7_incremental-append_leading-summaries"
    home = tmp_path / "home"
    dst = home / ".claude/projects/-p/3fb74381-1bf4-475e-8c6f-442d872b1bcf.jsonl"
    dst.parent.mkdir(parents=True)
    shutil.copyfile(pair / "turn-1.jsonl", dst)
    first = run(home)
    assert (first.new_sessions, first.new_turns) == (1, 1)
    with open(dst, "ab") as fh:
        fh.write((pair / "turn-2.jsonl").read_bytes()[dst.stat().st_size :])
    second = run(home)
    assert (second.files_changed, second.new_sessions, second.new_turns) == (1, 0, 3)
    assert second.bytes_read == (pair / "turn-2.jsonl").stat().st_size - 7658
    whole = tmp_path / "whole"
    w = whole / ".claude/projects/-p" / dst.name
    w.parent.mkdir(parents=True)
    shutil.copyfile(pair / "turn-2.jsonl", w)
    run(whole)
    mine, theirs = dump(home), dump(whole)
    for table in ("sessions", "turns", "tool_calls", "signals", "events"):
        assert mine[table] == [r.replace("HOME", "HOME") for r in theirs[table]]


def test_replaced_and_shrunk_files_never_double(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lay_out(home)
    run(home)
    before = dump(home)
    totals = query(home, "SELECT count(*) FROM sessions")[0][0]
    for _src, rel in FILES:
        p = home / rel
        data = p.read_bytes()
        tmp = p.with_suffix(".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, p)  # new inode: re-read from 0, de-duplicated by record id
    report = run(home)
    assert report.files_changed == len(FILES)
    after = dump(home)
    for table in ("sessions", "turns", "tool_calls", "signals", "events"):
        assert after[table] == before[table], table
    # shrink: truncate a file to its first half, then restore it
    p = home / FILES[1][1]
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    run(home)
    p.write_bytes(data)
    run(home)
    assert query(home, "SELECT count(*) FROM sessions")[0][0] == totals
    assert dump(home)["turns"] == before["turns"]


def test_unchanged_rescan_reads_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lay_out(home)
    run(home)
    report = run(home)
    assert report.files_changed == 0 and report.bytes_read == 0


def test_failed_pass_rolls_back_and_rerun_matches(tmp_path: Path, monkeypatch) -> None:
    """Batches commit together: an error mid-pass leaves no half-written state behind."""
    ingest_mod = importlib.import_module("session_ingest.ingest")

    clean, home = tmp_path / "clean", tmp_path / "home"
    lay_out(clean)
    run(clean)
    lay_out(home)
    monkeypatch.setattr(ingest_mod, "BATCH_FILES", 2)  # several flushes in one commit
    real_flush, calls = ingest_mod._Pass.flush, []

    def failing_flush(self, commit: bool = False) -> None:
        calls.append(commit)
        if len(calls) == 3:
            raise RuntimeError("disk on fire")
        real_flush(self, commit)

    monkeypatch.setattr(ingest_mod._Pass, "flush", failing_flush)
    try:
        run(home)
    except RuntimeError:
        pass
    else:
        raise AssertionError("the pass should have failed")
    assert query(home, "SELECT count(*) FROM events")[0][0] == 0
    assert query(home, "SELECT count(*) FROM files")[0][0] == 0
    monkeypatch.setattr(ingest_mod._Pass, "flush", real_flush)
    run(home)
    assert dump(home) == dump(clean)


def test_tiny_read_chunks_change_nothing(tmp_path: Path, monkeypatch) -> None:
    # Lines cut across reads of the reused buffer and partial lines carried over give
    # the same database as big reads.
    ingest_mod = importlib.import_module("session_ingest.ingest")
    lay_out(tmp_path / "big")
    run(tmp_path / "big")
    monkeypatch.setattr(ingest_mod, "CHUNK", 7)
    lay_out(tmp_path / "small")
    run(tmp_path / "small")
    assert dump(tmp_path / "small") == dump(tmp_path / "big")


def test_too_long_line_is_skipped_across_reads(tmp_path: Path, monkeypatch) -> None:
    ingest_mod = importlib.import_module("session_ingest.ingest")
    sid = "11111111-2222-3333-4444-555555555555"
    rec = (b'{"type":"user","sessionId":"%s","uuid":"u%%d","timestamp":"2026-03-01T10:00:0%%dZ",'
           b'"message":{"role":"user","content":"request %%d"}}' % sid.encode())  # fmt: skip
    long_line = b'{"type":"user","message":{"content":"' + b"x" * 5000 + b'"}}'
    path = f".claude/projects/-w-app/{sid}.jsonl"
    for name, lines in (("plain", [rec % (i, i, i) for i in range(3)]),
                        ("long", [rec % (0, 0, 0), long_line, rec % (1, 1, 1), rec % (2, 2, 2)])):  # fmt: skip
        (tmp_path / name / path).parent.mkdir(parents=True)
        (tmp_path / name / path).write_bytes(b"\n".join(lines) + b"\n")
    run(tmp_path / "plain")
    monkeypatch.setattr(ingest_mod, "CHUNK", 64)
    monkeypatch.setattr(ingest_mod, "MAX_LINE_BYTES", 1000)
    report = run(tmp_path / "long")
    assert report.bad_lines == 1 and "longer than" in "\n".join(report.errors)
    long, plain = dump(tmp_path / "long"), dump(tmp_path / "plain")
    assert long.pop("events") != plain.pop("events")  # same records, other offsets
    assert long.pop("files") != plain.pop("files")
    assert long == plain
