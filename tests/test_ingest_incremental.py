# ruff: noqa: E501 - log records stay one per line, as in the real files
"""Incremental ingest: byte offsets, partial lines, growth, shrink/replace, in-place rewrites,
pieces == whole.

Each property runs on the project's own fixtures (always) and on the real logs in
``../shared`` (skipped when absent)."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_helpers import (
    OWN,
    all_fixture_files,
    dump,
    lay_out,
    lay_out_own,
    own_fixture_files,
    query,
    run,
)

from skillopt_sleep.store import open_store

FILE_SETS = {"own": own_fixture_files(), "real": all_fixture_files()}
LAYOUTS = [
    pytest.param(lay_out_own, id="own"),
    pytest.param(lay_out, id="real", marks=pytest.mark.needs_shared),
]
FORK = [  # a session and its fork: the fork's first records copy the original's uuids
    (OWN / rel, rel)
    for rel in (
        ".claude/projects/-home-ana-src-dice/91c0d7e4-6a2f-4b58-9d31-7e4f0a2b8c65.jsonl",
        ".claude/projects/-home-ana-src-dice/2f7b8a13-c9e0-4d46-a5b2-0c1e9d3f7a84.jsonl",
    )
]


@cache
def _whole(files: tuple[tuple[Path, str], ...]) -> dict[str, list[str]]:
    """Database content after ingesting ``files`` in one pass."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        for src, rel in files:
            (home / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, home / rel)
        run(home)
        return dump(home)


def _pieces(files: tuple[tuple[Path, str], ...], steps: list[tuple[int, int]]) -> dict:
    """Content after passes that each append the next piece of one file (``(file, cut)``
    steps, in order), then a last pass with every file complete."""
    data = [src.read_bytes() for src, _rel in files]
    done = [0] * len(files)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        for _src, rel in files:
            (home / rel).parent.mkdir(parents=True, exist_ok=True)
            (home / rel).write_bytes(b"")
        for which, cut in [*steps, *((i, len(d)) for i, d in enumerate(data))]:
            with open(home / files[which][1], "ab") as fh:
                fh.write(data[which][done[which] : max(done[which], cut)])
            done[which] = max(done[which], cut)
            run(home)
        return dump(home)


def _split_invariance(data: st.DataObject, files: list[tuple[Path, str]]) -> None:
    index = data.draw(st.integers(0, len(files) - 1), label="fixture")
    size = files[index][0].stat().st_size
    cuts = data.draw(st.lists(st.integers(0, size), max_size=4), label="cuts")
    one = (files[index],)
    assert _pieces(one, [(0, c) for c in sorted(cuts)]) == _whole(one)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pieces_equal_whole_at_any_split_points(data: st.DataObject) -> None:
    _split_invariance(data, FILE_SETS["own"])


@pytest.mark.needs_shared
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pieces_equal_whole_at_any_split_points_real(data: st.DataObject) -> None:
    _split_invariance(data, FILE_SETS["real"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_fork_keeps_the_records_it_copied_however_passes_split(data: st.DataObject) -> None:
    """The fork copies the original's first records (same uuids, its own sessionId): both
    sessions keep them whether the files are read together, one after the other, or in
    interleaved pieces."""
    sizes = [src.stat().st_size for src, _rel in FORK]
    steps = data.draw(
        st.lists(st.tuples(st.integers(0, 1), st.integers(0, max(sizes))), max_size=5),
        label="steps",
    )
    steps = [(which, min(cut, sizes[which])) for which, cut in steps]
    assert _pieces(tuple(FORK), steps) == _whole(tuple(FORK))


def test_the_fork_and_its_original_both_hold_the_copied_turn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    original, fork = FORK
    for src, rel in (original, fork):  # the original first, then the fork in a later pass
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, home / rel)
        run(home)
    rows = query(home, "SELECT session_id, user_text FROM turns ORDER BY session_id, idx")
    assert rows == [
        ("2f7b8a13-c9e0-4d46-a5b2-0c1e9d3f7a84", "add a --seed option to the roll command"),
        (
            "2f7b8a13-c9e0-4d46-a5b2-0c1e9d3f7a84",
            "instead, make the seed an environment variable DICE_SEED",
        ),
        ("91c0d7e4-6a2f-4b58-9d31-7e4f0a2b8c65", "add a --seed option to the roll command"),
        ("91c0d7e4-6a2f-4b58-9d31-7e4f0a2b8c65", "now document it in the README"),
    ]
    title = {"type": "custom-title", "customTitle": "seed from the environment",
             "sessionId": "2f7b8a13-c9e0-4d46-a5b2-0c1e9d3f7a84"}  # fmt: skip
    with open(home / fork[1], "ab") as fh:  # the fork grows: its events are read back
        fh.write(json.dumps(title).encode() + b"\n")
    run(home)
    assert query(home, "SELECT count(*) FROM turns WHERE session_id LIKE '2f7b8a13%'") == [(2,)]
    assert query(home, "SELECT title FROM sessions WHERE id LIKE '2f7b8a13%'") == [
        ("seed from the environment",)
    ]


@pytest.mark.parametrize("files", ["own", pytest.param("real", marks=pytest.mark.needs_shared)])
def test_every_line_boundary_split(files: str) -> None:
    # splits exactly at and around line ends of the file with the most record kinds
    chosen = max(FILE_SETS[files], key=lambda f: f[0].stat().st_size)
    data = chosen[0].read_bytes()
    ends = [i + 1 for i, b in enumerate(data) if b == 10][:8]
    steps = [(0, c) for c in sorted(ends + [e - 1 for e in ends])]
    assert _pieces((chosen,), steps) == _whole((chosen,))


def test_partial_last_line_waits(tmp_path: Path) -> None:
    rel = ".claude/projects/-srv-notes/c3a07e19-54d2-4b8f-a6e1-9f2d0c8b7a31.jsonl"
    data = (OWN / rel).read_bytes()
    home = tmp_path / "home"
    dst = home / rel
    dst.parent.mkdir(parents=True)
    first_end = data.index(b"\n", data.index(b"rename notes.txt")) + 1
    dst.write_bytes(data[: first_end + 50])  # one complete user line + half of the next
    run(home)
    assert query(home, "SELECT offset, size FROM files")[0] == (first_end, first_end + 50)
    assert query(home, "SELECT user_text FROM turns") == [("rename notes.txt to notes.md",)]
    dst.write_bytes(data)
    run(home)
    assert query(home, "SELECT count(*) FROM turns")[0][0] == 3


def test_a_record_appended_after_a_truncated_line_is_kept(tmp_path: Path) -> None:
    """The writer died mid-line; the agent, restarted, appends its next record right after
    the fragment. The fragment is one bad line; the record after it is kept."""
    sid = "11111111-2222-3333-4444-555555555555"

    def rec(uuid: str, text: str) -> bytes:
        return json.dumps({"type": "user", "sessionId": sid, "uuid": uuid, "cwd": "/w",
                           "timestamp": "2026-03-01T10:00:00Z",
                           "message": {"role": "user", "content": text}}).encode()  # fmt: skip

    home, whole = tmp_path / "home", tmp_path / "whole"
    path = home / f".claude/projects/-w/{sid}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(rec("u1", "first request") + b"\n" + rec("u2", "lost to a crash")[:40])
    first = run(home)
    assert (first.turns, first.bad_lines) == (1, 0)  # the partial line waits
    with open(path, "ab") as fh:
        fh.write(rec("u3", "second request") + b"\n" + rec("u4", "third request") + b"\n")
    second = run(home)
    texts = [r[0] for r in query(home, "SELECT user_text FROM turns ORDER BY idx")]
    assert texts == ["first request", "second request", "third request"]
    assert second.bad_lines == 1 and "truncated record" in second.errors[0]
    # a whole record that only lacked its newline loses nothing
    w = whole / f".claude/projects/-w/{sid}.jsonl"
    w.parent.mkdir(parents=True)
    w.write_bytes(rec("u1", "first request") + rec("u3", "second request") + b"\n")
    assert run(whole).bad_lines == 0
    assert query(whole, "SELECT count(*) FROM turns") == [(2,)]


@pytest.mark.needs_shared
def test_growing_session_turn1_then_turn2(tmp_path: Path) -> None:
    from ingest_helpers import CLAUDE

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
        assert mine[table] == theirs[table]


@pytest.mark.parametrize("lay", LAYOUTS)
def test_replaced_and_shrunk_files_never_double(tmp_path: Path, lay) -> None:
    home = tmp_path / "home"
    lay(home)
    run(home)
    before = dump(home)
    totals = query(home, "SELECT count(*) FROM sessions")[0][0]
    logs = query(home, "SELECT path FROM files ORDER BY path")
    for (path,) in logs:
        p = Path(path)
        tmp = p.with_suffix(".tmp")
        tmp.write_bytes(p.read_bytes())
        os.replace(tmp, p)  # new inode: re-read from 0, de-duplicated by record id
    report = run(home)
    assert report.files_changed == len(logs)
    after = dump(home)
    for table in ("sessions", "turns", "tool_calls", "signals", "events"):
        assert after[table] == before[table], table
    # shrink: truncate a log to its first half, then restore it
    p = Path(max(logs, key=lambda r: Path(r[0]).stat().st_size)[0])
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    run(home)
    p.write_bytes(data)
    run(home)
    assert query(home, "SELECT count(*) FROM sessions")[0][0] == totals
    assert dump(home)["turns"] == before["turns"]


@pytest.mark.parametrize("lay", LAYOUTS)
def test_unchanged_rescan_reads_nothing(tmp_path: Path, lay) -> None:
    home = tmp_path / "home"
    lay(home)
    run(home)
    report = run(home)
    assert report.files_changed == 0 and report.bytes_read == 0


@pytest.mark.parametrize("lay", LAYOUTS)
def test_failed_pass_rolls_back_and_rerun_matches(tmp_path: Path, monkeypatch, lay) -> None:
    """Batches commit together: an error mid-pass leaves no half-written state behind."""
    ingest_mod = importlib.import_module("session_ingest.passes")

    clean, home = tmp_path / "clean", tmp_path / "home"
    lay(clean)
    run(clean)
    lay(home)
    monkeypatch.setattr(ingest_mod, "BATCH_FILES", 2)  # several flushes in one commit
    real_flush, calls = ingest_mod._Pass.flush, []

    def failing_flush(self, commit: bool = False) -> None:
        calls.append(commit)
        if len(calls) == 3:
            raise RuntimeError("disk on fire")
        real_flush(self, commit)

    monkeypatch.setattr(ingest_mod._Pass, "flush", failing_flush)
    with pytest.raises(RuntimeError):
        run(home)
    assert query(home, "SELECT count(*) FROM events")[0][0] == 0
    assert query(home, "SELECT count(*) FROM files")[0][0] == 0
    monkeypatch.setattr(ingest_mod._Pass, "flush", real_flush)
    run(home)
    assert dump(home) == dump(clean)


@pytest.mark.parametrize("lay", LAYOUTS)
def test_tiny_read_chunks_change_nothing(tmp_path: Path, monkeypatch, lay) -> None:
    # Lines cut across reads of the reused buffer and partial lines carried over give
    # the same database as big reads.
    ingest_mod = importlib.import_module("session_ingest.passes")
    lay(tmp_path / "big")
    run(tmp_path / "big")
    monkeypatch.setattr(ingest_mod, "CHUNK", 7)
    lay(tmp_path / "small")
    run(tmp_path / "small")
    assert dump(tmp_path / "small") == dump(tmp_path / "big")


def test_too_long_line_is_skipped_across_reads(tmp_path: Path, monkeypatch) -> None:
    ingest_mod = importlib.import_module("session_ingest.passes")
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


def _claude_pairs(sid: str, texts: list[str], tag: str) -> bytes:
    """A Claude Code log: one request and one answer per text (uuids unique per ``tag``)."""
    out = []
    for i, text in enumerate(texts):
        base = {"sessionId": sid, "cwd": "/w", "timestamp": f"2026-03-01T10:{i:02d}:00Z"}
        out.append(
            {
                **base,
                "type": "user",
                "uuid": f"{tag}-u{i}",
                "message": {"role": "user", "content": text},
            }
        )
        out.append({**base, "type": "assistant", "uuid": f"{tag}-a{i}",
                    "message": {"id": f"{tag}-m{i}", "role": "assistant", "model": "m",
                                "content": [{"type": "text", "text": f"done: {text}"}]}})  # fmt: skip
    return b"".join(json.dumps(r).encode() + b"\n" for r in out)


def _codex_lines(texts: list[str], meta: str | None = None) -> bytes:
    """Codex rollout lines: the ``session_meta`` when ``meta`` (the thread id) is given,
    then one request and one answer per text."""

    def env(kind: str, payload: dict, i: int = 0) -> dict:
        return {"timestamp": f"2026-03-01T10:{i:02d}:00Z", "type": kind, "payload": payload}

    out = [env("session_meta", {"id": meta, "cwd": "/w", "originator": "codex_cli_rs"})]
    out = out if meta else []
    for i, text in enumerate(texts):
        out.append(env("event_msg", {"type": "user_message", "message": text}, i))
        out.append(env("event_msg", {"type": "agent_message", "message": f"done: {text}"}, i))
    return b"".join(json.dumps(r).encode() + b"\n" for r in out)


def _rewrite_in_place(path: Path, data: bytes) -> None:
    """New content in the same file (same inode), as an editor or a tool that rewrites a
    log without replacing it does."""
    ino = path.stat().st_ino
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
    assert path.stat().st_ino == ino


def _user_texts(home: Path) -> list[str]:
    return [r[0] for r in query(home, "SELECT user_text FROM turns WHERE kind = 'human'")]


@pytest.mark.parametrize("source", ["claude", "codex"])
@pytest.mark.parametrize("keep", [0, 2], ids=["all-new", "same-head"])
def test_a_log_rewritten_in_place_and_grown_is_read_again(
    tmp_path: Path, source: str, keep: int
) -> None:
    """A log rewritten in place (same inode, other records after the first ``keep``) and
    grown past the old end: every record of the new content is stored once, the old ones
    are kept and not doubled, and the file is resumed from its new end afterwards (the
    review lost 42 turns this way: ingest went on from the old offset)."""
    home = tmp_path / "home"
    old = [f"old request number {i}" for i in range(4)]
    new = [f"new request number {j}" for j in range(7)]
    if source == "claude":
        sid = "11111111-2222-3333-4444-555555555555"
        path = home / ".claude" / "projects" / "-w" / f"{sid}.jsonl"
        before = _claude_pairs(sid, old, "old")
        after = _claude_pairs(sid, old[:keep], "old") + _claude_pairs(sid, new, "new")
        appended = _claude_pairs(sid, ["appended request"], "more")
    else:
        cid = "019a0000-0000-7000-8000-0000000000bb"
        path = home / f".codex/sessions/2026/03/01/rollout-2026-03-01T10-00-00-{cid}.jsonl"
        before = _codex_lines(old, meta=cid)
        after = _codex_lines(old[:keep], meta=cid) + _codex_lines(new)
        appended = _codex_lines(["appended request"])
    path.parent.mkdir(parents=True)
    path.write_bytes(before)
    run(home)
    assert sorted(_user_texts(home)) == sorted(old)
    assert len(after) > len(before)  # grown: the old offset lies inside the new content
    _rewrite_in_place(path, after)
    second = run(home)
    assert second.files_changed == 1 and second.bytes_read == len(after)
    texts = _user_texts(home)
    for text in old + new:
        assert texts.count(text) == 1, (text, texts)
    assert len(texts) == len(old + new)
    with open(path, "ab") as fh:  # appended afterwards: read from the new end only
        fh.write(appended)
    third = run(home)
    assert third.bytes_read == len(appended)
    assert sorted(_user_texts(home)) == sorted([*old, *new, "appended request"])
    assert run(home).files_changed == 0


def test_a_record_changed_in_place_without_changing_the_size_of_the_prefix(
    tmp_path: Path,
) -> None:
    """One record in the middle rewritten with as many bytes, then the log grows: the
    bytes before the old offset differ, so the changed record is read too."""
    home = tmp_path / "home"
    sid = "11111111-2222-3333-4444-555555555555"
    path = home / ".claude" / "projects" / "-w" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True)
    texts = [f"request number {i} of the day" for i in range(6)]
    path.write_bytes(_claude_pairs(sid, texts, "a"))
    run(home)
    changed = [*texts[:3], "REQUEST NUMBER 3 OF THE DAY", *texts[4:]]  # same length, new uuid below
    data = _claude_pairs(sid, changed, "a").replace(b'"a-u3"', b'"b-u3"')
    _rewrite_in_place(path, data + _claude_pairs(sid, ["one more"], "c"))
    run(home)
    got = _user_texts(home)
    assert sorted(got) == sorted([*texts, "REQUEST NUMBER 3 OF THE DAY", "one more"]), got


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 4), st.floats(0, 1)),
        st.tuples(st.just("rewrite"), st.integers(0, 6), st.integers(0, 5)),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=_OPS, source=st.sampled_from(["claude", "codex"]))
def test_appends_and_in_place_rewrites_in_any_order_lose_nothing(
    ops: list[tuple], source: str
) -> None:
    """A log that grows (at any byte, a partial last line included) and is rewritten in
    place (a kept head, then new records; shorter or longer than before), with a pass
    after each step: the store holds exactly the records of every complete line any pass
    saw, each once: the events of a fresh ingest of each state the passes saw, together."""
    sid = "11111111-2222-3333-4444-555555555555"
    rel = (f".claude/projects/-w/{sid}.jsonl" if source == "claude"
           else f".codex/sessions/2026/03/01/rollout-2026-03-01T10-00-00-{sid}.jsonl")  # fmt: skip
    counter = iter(range(10_000))

    def units(n: int) -> list[str]:
        return [f"request {next(counter)} of the log" for _ in range(n)]

    def encode(texts: list[str], head: bool) -> bytes:
        if source == "claude":
            return b"".join(_claude_pairs(sid, [t], t.split()[1]) for t in texts)
        return _codex_lines(texts, meta=sid if head else None)

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        path = home / rel
        path.parent.mkdir(parents=True)
        texts = units(2)
        data = encode(texts, True)
        path.write_bytes(data)
        seen: list[bytes] = [data]
        run(home)
        for op, a, b in ops:
            if op == "append":
                more = encode(units(a), False)
                data += more[: max(1, int(len(more) * b))]  # maybe a partial last line
                with open(path, "ab") as fh:
                    fh.write(data[path.stat().st_size :])
            else:
                whole = data[: data.rfind(b"\n") + 1]
                kept = whole.split(b"\n")[: a * 2 + (source == "codex")]
                data = b"".join(line + b"\n" for line in kept) + encode(units(b), not kept)
                _rewrite_in_place(path, data)
            seen.append(data)
            run(home)
        got = set(query(home, "SELECT grp, id FROM events"))
        want: set[tuple] = set()
        for i, state in enumerate(seen):
            fresh = Path(tmp) / f"fresh{i}"
            (fresh / rel).parent.mkdir(parents=True)
            (fresh / rel).write_bytes(state[: state.rfind(b"\n") + 1])
            run(fresh)
            want |= set(query(fresh, "SELECT grp, id FROM events"))
        assert got == want
        texts = _user_texts(home)
        assert len(texts) == len(set(texts))


def test_a_file_known_from_before_fingerprints_is_read_again_once(tmp_path: Path) -> None:
    """A store upgraded from a version that kept no fingerprint: the file is read again
    from 0 the next time it grows (nothing doubled), then resumed as usual."""
    home = tmp_path / "home"
    sid = "11111111-2222-3333-4444-555555555555"
    path = home / ".claude" / "projects" / "-w" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(_claude_pairs(sid, ["first request"], "a"))
    run(home)
    db = open_store(home / "state")
    try:
        db.execute("UPDATE files SET prefix = NULL")
        db.conn.commit()
    finally:
        db.close()
    with open(path, "ab") as fh:
        fh.write(_claude_pairs(sid, ["second request"], "b"))
    assert run(home).bytes_read == path.stat().st_size
    assert sorted(_user_texts(home)) == ["first request", "second request"]
    with open(path, "ab") as fh:
        fh.write(more := _claude_pairs(sid, ["third request"], "c"))
    assert run(home).bytes_read == len(more)
