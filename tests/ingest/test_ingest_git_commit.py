"""Codex sessions keep the commit they started from (session_meta.git.commit_hash), the
input of harness replay's workspace; anything that is not a commit id is not kept."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ingest_helpers import CODEX, CODEX_LAYOUT, lay_out, query, run

_UUID = re.compile(r"^[0-9a-f-]{36}$")


def _meta_commits() -> dict[str, str | None]:
    """session id -> the commit_hash its real fixture's session_meta carries."""
    out: dict[str, str | None] = {}
    for name in CODEX_LAYOUT:
        for line in (CODEX / name).read_text(errors="replace").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            p = rec.get("payload") if isinstance(rec, dict) else None
            if (
                rec.get("type") == "session_meta"
                and isinstance(p, dict)
                and _UUID.match(str(p.get("id")))
            ):
                out.setdefault(p["id"], (p.get("git") or {}).get("commit_hash"))
    return out


def test_codex_sessions_keep_their_starting_commit(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lay_out(home)
    assert run(home).errors == []
    stored = dict(query(home, "SELECT id, git_commit FROM sessions WHERE source = 'codex'"))
    expected = _meta_commits()
    assert expected and set(expected) <= set(stored)
    hexes = 0
    for sid, commit in expected.items():
        if commit and all(c in "0123456789abcdef" for c in commit):
            assert stored[sid] == commit
            hexes += 1
        else:  # e.g. "[trimmed for fixture]": not a commit id, not kept
            assert stored[sid] is None
    assert hexes >= 2
    claude = query(
        home, "SELECT count(*) FROM sessions WHERE source = 'claude' AND git_commit IS NOT NULL"
    )
    assert claude == [(0,)]  # Claude's logs carry no commit: mining asks the local repo
