# ruff: noqa: E501 - log records stay one per line, as in the real files
"""Helpers for the ingest tests: lay fixtures out as the tools do, run ingest, dump the db.

Two sets of fixtures: the project's own (``tests/fixtures/home``, a HOME with the tools'
layout, written for this project; every parser path) and the real logs in
``../shared/fixtures/real`` (``lay_out`` skips the test when they are absent).
"""

from __future__ import annotations

import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from conftest import REAL_FIXTURES, require_real_fixtures

from session_ingest import IngestReport
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.settings.logs import ingest_logs
from skillopt_sleep.store import open_store

OWN = Path(__file__).resolve().parent / "fixtures" / "home"
REAL = REAL_FIXTURES
CLAUDE = REAL / "claude"
CODEX = REAL / "codex"

# fixture file -> where the tool itself would have written it (relative to $HOME)
CLAUDE_LAYOUT = {
    "01_v1.0.98_init-command_tool-error/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl":
        ".claude/projects/-path-to-Demo/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "02_v1.0.108_inline-sidechain_tool-errors/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl":
        ".claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "03_v1.0.x_summary-only-file/4762e53b-7ca8-4464-9eac-d1816c343c50.jsonl":
        ".claude/projects/-Users-a-proj/4762e53b-7ca8-4464-9eac-d1816c343c50.jsonl",
    "04_v2.0.64_project-level-agent-file/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl":
        ".claude/projects/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
    "04_v2.0.64_project-level-agent-file/-tmp-private/agent-36541525.jsonl":
        ".claude/projects/-tmp-private/agent-36541525.jsonl",
    "05_v2.1.4_summaries_thinking_tool-error/session-9eda1058.jsonl":
        ".claude/projects/-Users-user-repo/9eda1058-9706-484a-b992-d03f9cfa2546.jsonl",
    "06_v2.1.7_incremental-append_leading-summaries/turn-2.jsonl":
        ".claude/projects/-Users-u-codemie/3fb74381-1bf4-475e-8c6f-442d872b1bcf.jsonl",
    "08_v2.1.38_progress-hooks_bash-progress/tool_heavy.jsonl":
        ".claude/projects/-home-marco-projects-spotter/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl",
    "10_v2.1.152_sdk-cli_last-prompt/session-01.jsonl":
        ".claude/projects/-tmp-agent-history/06090cb1-3e64-433a-bc7e-a621c0f596d2.jsonl",
    "99_HANDMADE_schema-coverage_v2.1.80-2.1.220/small.jsonl":
        ".claude/projects/-tmp-handmade/small.jsonl",
}  # fmt: skip
CODEX_LAYOUT = {
    "01_0.77.0_cli_instructions-in-session-meta/sample_codex_session.jsonl":
        ".codex/sessions/2025/12/28/sample_codex_session.jsonl",
    "02_0.104.0-alpha.1_desktop_unfinished-turn/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl":
        ".codex/sessions/2026/02/23/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl",
    "03_0.104.0-alpha.1_desktop_mcp-tools/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl":
        ".codex/sessions/2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
    "04_0.104.0-alpha.1_desktop_exec-command-heavy/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl":
        ".codex/sessions/2026/02/23/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl",
    "06_0.125.0_tui_EXCERPT-head_exec-command-end/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl":
        ".codex/sessions/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
    "08_0.135.0_exec_single-turn/session-01.jsonl":
        ".codex/sessions/2026/06/05/session-01.jsonl",
    "99_HANDMADE_schema-coverage_0.146.0/small.jsonl":
        ".codex/archived_sessions/small.jsonl",
}  # fmt: skip


def all_fixture_files() -> list[tuple[Path, str]]:
    """(fixture file, layout path) for every real fixture used in the whole layout (paths
    only: nothing is read, so this is safe at collection time)."""
    out = [(CLAUDE / k, v) for k, v in CLAUDE_LAYOUT.items()]
    return out + [(CODEX / k, v) for k, v in CODEX_LAYOUT.items()]


def own_fixture_files() -> list[tuple[Path, str]]:
    """(fixture file, layout path) for every log of the project's own fixtures."""
    logs = [p for p in sorted(OWN.rglob("*")) if p.suffix in (".jsonl", ".json")]
    return [(p, str(p.relative_to(OWN))) for p in logs if not p.name.endswith(".meta.json")]


def lay_out(home: Path) -> None:
    """The real logs, where the tools write them (skips the test when they are absent)."""
    require_real_fixtures()
    for src, rel in all_fixture_files():
        dst = home / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)


def lay_out_own(home: Path) -> None:
    """The project's own fixtures, where the tools write them."""
    shutil.copytree(OWN, home, dirs_exist_ok=True)


def roots(home: Path) -> dict[str, list[Path]]:
    """``session_ingest``'s roots for a HOME laid out as the tools do."""
    return {"claude": [home / ".claude"], "codex": [home / ".codex"]}


def config(home: Path, **overrides: Any) -> dict[str, Any]:
    values = {
        "sources.claude.roots": [str(home / ".claude")],
        "sources.codex.roots": [str(home / ".codex")],
        "state_dir": str(home / "state"),
        **overrides,
    }
    return config_mod.load(None, overrides=values, environ={})


_TEMPLATES = tempfile.TemporaryDirectory(prefix="ingest-store-")  # removed at exit


@cache
def _empty_store() -> Path:
    """A migrated, empty store, made once: copying it is ~10x cheaper than migrating."""
    state = Path(_TEMPLATES.name) / "state"
    open_store(state).close()
    return state / "skillopt-sleep.db"


def run(home: Path, **overrides: Any) -> IngestReport:
    state = home / "state"
    if not state.exists():
        state.mkdir(parents=True, mode=0o700)
        shutil.copy2(_empty_store(), state / "skillopt-sleep.db")
    db = open_store(state)
    try:
        return ingest_logs(db, config(home, **overrides))
    finally:
        db.close()


def query(home: Path, sql: str, params: tuple = ()) -> list[tuple]:
    db = open_store(home / "state")
    try:
        return [tuple(r) for r in db.execute(sql, params).fetchall()]
    finally:
        db.close()


TABLES = {
    "events": "SELECT id, grp, source, path, offset, data FROM events ORDER BY grp, id",
    "sessions": "SELECT * FROM sessions ORDER BY id",
    "turns": "SELECT * FROM turns ORDER BY id",
    "tool_calls": "SELECT * FROM tool_calls ORDER BY id",
    "signals": "SELECT * FROM signals ORDER BY id",
    "files": "SELECT path, source, size, offset, bad_lines, session_id FROM files ORDER BY path",
}


def dump(home: Path) -> dict[str, list[str]]:
    """All ingest tables as comparable text, with the home path replaced by a token."""
    out = {}
    for name, sql in TABLES.items():
        rows = query(home, sql)
        out[name] = [repr(r).replace(str(home), "HOME") for r in rows]
    return out
