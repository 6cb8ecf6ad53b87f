# ruff: noqa: E501 - log records stay one per line, as in the real files
"""Redaction: every secret shape, decoded JSON escapes, clipping, and no planted secret in
any database file (``.db``, ``-wal``, ``-shm``) after a real ingest."""

from __future__ import annotations

import base64
import importlib
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ingest_helpers import config, query
from secret_shapes import fill, shapes, survives

from session_ingest.redact import CLIP_MARGIN, redact, redact_clip
from skillopt_sleep.settings.logs import ingest_logs
from skillopt_sleep.store import open_store

SHAPES = shapes()


def test_the_table_has_at_least_forty_shapes() -> None:
    assert len(SHAPES) >= 40
    assert len({name for name, _t, _s in SHAPES}) == len(SHAPES)


@pytest.mark.parametrize(("name", "text", "secret"), SHAPES, ids=[s[0] for s in SHAPES])
def test_every_shape_is_redacted(name: str, text: str, secret: str) -> None:
    out = redact(text)
    assert not survives(out, secret), out
    assert "[REDACTED:" in out


@pytest.mark.parametrize(
    ("name", "kind"),
    [("openai_project_key", "openai_key"), ("anthropic_key", "anthropic_key"),
     ("github_fine_grained_pat", "github_token"), ("aws_access_key_id", "aws_access_key"),
     ("slack_app_token", "slack_token"), ("pgp_private_key_block", "private_key"),
     ("url_password_empty_user", "url_password"), ("basic_auth_header", "basic_auth"),
     ("sentry_dsn", "url_token"), ("yaml_password", "password"),
     ("azure_storage_account_key", "secret"), ("jwt", "jwt"),
     ("azure_sas_url", "secret"), ("s3_presigned_url", "secret"),
     ("base64_piped_key", "base64_secret"), ("base64_private_key", "base64_secret"),
     ("sshpass_password", "password"), ("sudo_stdin_password", "password")],
)  # fmt: skip
def test_placeholders_name_the_kind(name: str, kind: str) -> None:
    text = next(t for n, t, _s in SHAPES if n == name)
    assert f"[REDACTED:{kind}]" in redact(text)


def test_labels_around_a_secret_stay_readable() -> None:
    secrets = {n: s for n, _t, s in SHAPES}
    pw = secrets["url_password"]
    assert (
        redact(f"postgres://app:{pw}@db.internal:5432/app")
        == "postgres://app:[REDACTED:url_password]@db.internal:5432/app"
    )
    assert redact("PGPASSWORD=abc123 psql") == "PGPASSWORD=[REDACTED:password] psql"
    assert redact('{"password": "hunter2"}') == '{"password": "[REDACTED:password]"}'
    token = fill(40)
    assert (
        redact(f"Authorization: Bearer {token}") == "Authorization: Bearer [REDACTED:bearer_token]"
    )
    assert redact(f"sshpass -p {pw} ssh web") == "sshpass -p [REDACTED:password] ssh web"
    assert redact(f"sshpass -p '{pw}' ssh web") == "sshpass -p [REDACTED:password] ssh web"
    assert (
        redact(f"docker login -p {pw} r.example") == "docker login -p [REDACTED:password] r.example"
    )
    assert redact(f"echo '{pw}' | sudo -kS true") == "echo [REDACTED:password] | sudo -kS true"
    # a netrc entry's "login me" earlier on the line does not hide the registry login after it
    # (the hypothesis test below found it: the first "login" started a match that was dropped)
    netrc_then_docker = f"machine h login me password {pw}x docker login -u ci -p {pw}y r.example"
    assert redact(netrc_then_docker) == (
        "machine h login me password [REDACTED:password] "
        "docker login -u ci -p [REDACTED:password] r.example"
    )
    assert redact(f"az acr login -n reg -u me -p {pw}") == (
        "az acr login -n reg -u me -p [REDACTED:password]"
    )
    sas = secrets["azure_sas_url"]
    assert (
        redact(f"https://a.blob.core.windows.net/c/b?sv=2022-11-02&sig={sas}&se=2026-04-01")
        == "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sig=[REDACTED:secret]&se=2026-04-01"
    )


def test_ordinary_text_is_untouched() -> None:
    for text in (
        "the monkey ate a banana", "TOKEN_LIMIT=4096", "see https://example.com/a/b",
        "path: /usr/local/lib/python3.11/site-packages", "task-list-for-today-and-tomorrow",
        "key: value", "author = alexander_the_great", "def login(user: str, password: str) -> bool:",
        'password = request.form["password"]', "password=self.password", "max_tokens: 4096",
        "a basic understanding of the code", "Basic setup done", "docker run -u 1000:1000 img",
        "git push -u origin main", "https://registry.npmjs.org:443/@scope/pkg",
        "git@github.com:org/repo.git", "mail bob@example.com", "the password reset flow needs a test",
        "key_file=/home/dev/.ssh/id_ed25519", "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "export PGPASSWORD=$DB_PASS", "password: ${{ secrets.DB }}", "curl -u $USER:$TOKEN https://x",
        "SKILL.md says: run the tests", "uuid 123e4567-e89b-12d3-a456-426614174000",
    ):  # fmt: skip
        assert redact(text) == text


def test_ordinary_flags_signatures_and_base64_are_untouched() -> None:
    """The neighbours of the command-line, signature and base64 shapes that are no secret."""
    for text in (
        "docker run -p 8080:80 img", "ssh -p 2222 host", "sshpass -f ~/.pw ssh -p 22 host",
        "mysql -p mydb", "mysql -h db -P 3306 -u app -p", "mkdir -p a/b/c",
        "pytest -p no:cacheprovider", "git log -p", "redis-cli -h host ping",
        "echo hello | sudo tee /etc/x", "echo $PW | sudo -S apt update", "sudo -S apt update",
        'sshpass -p "$PASS" ssh h', "docker login -u me --password-stdin ghcr.io",
        "docker login ghcr.io -u me -p", "zip -r a.zip dir", "unzip -P $PW a.zip",
        "7z x a.7z -o/tmp", "smbclient -U admin //srv/share", "psql -U postgres -d app",
        "--password-file ~/.pw", "curl -u admin: https://x", "ssh -p 22 -i key user@host",
        "ssh -l login -p 2222 host", "ssh login@host -p 22",
        "the sig= parameter of the URL", "?sig=abc&x=1", "f(data, sig=compute_signature(x))",
        "signature=signature", "?Signature=true", "https://x.example/a?sig=${SAS_SIG}",
        "X-Amz-Signature=<signature>", "config=foo bar", "the Signature= field is required",
        "base64 -d < file.b64 > out.bin", "x86_64-linux-gnu and int64 arrays",
        "echo SGVsbG8gd29ybGQhIFRoaXMgaXMgYmFzZTY0 | base64 -d",
        "python -c 'import base64; print(base64.b64encode(b\"hello world\"))'",
        "sha512-3q2+7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA== integrity",
        "AutoModelForCausalLM.from_pretrained(name) # loads base64 weights? no",
    ):  # fmt: skip
        assert redact(text) == text


def test_base64_is_decoded_as_often_as_it_was_encoded() -> None:
    key = "gh" + "p_" + fill(36)
    twice = base64.b64encode(base64.b64encode(key.encode())).decode()
    out = redact(f"echo {twice} | base64 -d | base64 -d")
    assert out == "echo [REDACTED:base64_secret] | base64 -d | base64 -d"


def test_json_escaped_secrets_are_redacted_decoded() -> None:
    key = "sk-" + "proj-" + fill(48)
    escaped = json.dumps({"k": key}).replace("sk-", "\\u0073k-")
    assert "\\u0073k-" in escaped
    out = redact(escaped)
    assert not survives(out, key) and "[REDACTED:openai_key]" in out
    pw = "Pw" + fill(12)
    url = f"postgres:\\/\\/app:{pw}@db:5432\\/x"
    assert not survives(redact(url), pw)
    plain = "caf\\u00e9 \\/ menu"  # escapes without a secret are left as written
    assert redact(plain) == plain


def test_clip_never_leaves_part_of_a_secret() -> None:
    secret = next(s for n, _t, s in SHAPES if n == "github_classic_pat")
    assert redact_clip("x" * 95 + secret + "y" * 500, 100).endswith("chars]")
    assert not survives(redact_clip("x" * 95 + secret + "y" * 500, 100), secret)
    # A key block shrinks the redacted window: the kept 100 characters then reach the
    # end of the window, where a token cut in half no longer matches its rule.
    body = "\n".join(fill(64) for _ in range(8))
    pem = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + body + "\n-----END RSA " + "PRIVATE KEY-----"
    for shift in range(0, 22):
        head = "a" * 10 + pem + " "
        text = head + "b" * (100 + CLIP_MARGIN - shift - len(head) - 1) + " " + secret
        text += " " + "c" * 2000
        out = redact_clip(text, 100)
        assert not survives(out, secret), (shift, out)
        assert "[REDACTED:private_key]" in out and body[:20] not in out


_PIECES = st.sampled_from(
    ["word ", "\n", "x" * 300, " " * 40, "b" * 700] + [text for _n, text, _s in SHAPES]
)


@given(st.lists(_PIECES, min_size=1, max_size=12), st.integers(1, 1500))
@settings(max_examples=300, deadline=None)
def test_clip_of_any_mix_leaves_no_secret(pieces: list[str], limit: int) -> None:
    text = " ".join(pieces)
    out = redact_clip(text, limit)
    for _n, context, secret in SHAPES:
        if context in pieces:
            assert not survives(out, secret), (limit, out)


_NAME_TEXT = st.lists(
    st.sampled_from(
        [
            "key",
            "KEY",
            "Token",
            "passwd",
            "Password",
            "pwd",
            "secret",
            "auth",
            "credential",
            "sig",
            "Signature",
            "=",
            ":",
            ":=",
            " ",
            "\n",
            "\t",
            '"',
            "'",
            "\\",
            "_",
            "-",
            ".",
            "aB3",
            "x9Qz",
            "Zq81kLm0PpQ2rS3t/+",
            "hunter2",
            "None",
            "ſ",
            "ı",
            "\u212a",
            "İ",
            "é",
            "[REDACTED:x]",
            "(",
            "$",
        ]
    ),  # fmt: skip
    max_size=40,
).map("".join)


@given(_NAME_TEXT)
@settings(max_examples=400, deadline=None)
def test_fast_assignment_scan_equals_the_plain_regex(text: str) -> None:
    """Trying only the positions where a name starts changes nothing the regex would do."""
    mod = importlib.import_module("session_ingest.redact")
    assert mod._sub_assignments(text) == mod.ASSIGNMENT.sub(mod._assignment, text)


def _escaped(line: str) -> str:
    """The same JSON line with JSON escapes a writer may use (``\\u0073``, ``\\/``)."""
    return line.replace("sk-", "\\u0073k-").replace("://", ":\\/\\/").replace("ey", "\\u0065y")


def test_planted_secrets_never_reach_the_database_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    blob = "\n".join(text for _n, text, _s in SHAPES)
    sid = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    base = {"sessionId": sid, "cwd": "/w", "timestamp": "2026-03-01T10:00:00Z"}
    claude = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": f"deploy with {blob}"}},
        {**base, "type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant", "model": "m", "content": [
            {"type": "text", "text": f"Using {blob}"},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": f"env {blob}"}}]}},
        {**base, "type": "user", "uuid": "r1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": f"env: {blob}", "is_error": True}]}},
        {**base, "type": "user", "uuid": "i1", "message": {"role": "user", "content": f"[Request interrupted by user] {blob}"}},
        {**base, "type": "mystery-kind", "uuid": "x1", "payload": {"note": blob}},
        {**base, "type": "custom-title", "customTitle": f"title {blob}"},
        {**base, "type": "system", "subtype": "api_error", "uuid": "e1", "error": blob},
    ]  # fmt: skip
    lines = [json.dumps(r) for r in claude]
    lines += [_escaped(json.dumps({**r, "uuid": r["uuid"] + "e"})) for r in (claude[0], claude[4])]
    p = home / ".claude" / "projects" / "-w" / f"{sid}.jsonl"
    p.parent.mkdir(parents=True)
    p.write_text("\n".join(lines) + "\n{broken " + blob.replace("\n", " ") + "\n")
    cid = "019a0000-0000-7000-8000-0000000000aa"

    def env(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-03-01T10:00:00Z", "type": kind, "payload": payload})

    agents = "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\n" + blob + "\n</INSTRUCTIONS>"
    codex = [
        env("session_meta", {"id": cid, "cwd": "/w", "originator": "codex_cli_rs"}),
        env("event_msg", {"type": "user_message", "message": f"use {blob}"}),
        env("response_item", {"type": "function_call", "name": "shell", "call_id": "c", "arguments": json.dumps({"command": ["echo", blob]})}),
        env("response_item", {"type": "function_call", "name": "shell", "call_id": "d", "arguments": "{not json " + blob}),
        env("response_item", {"type": "function_call_output", "call_id": "c", "output": f"Exit code: 0\nOutput:\n{blob}"}),
        env("response_item", {"type": "function_call_output", "call_id": "d", "output": _escaped(json.dumps({"stdout": blob}))}),
        env("response_item", {"type": "function_call_output", "call_id": "c", "output": json.dumps({"out": _escaped(json.dumps({"stdout": blob}))})}),
        env("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": blob}]}),
        env("event_msg", {"type": "error", "message": blob}),
        env("world_state", {"agents_md": agents, "files": [{"path": "/w/.env", "text": blob}]}),
        env("future_kind", {"secret": blob}),
    ]  # fmt: skip
    codex += [_escaped(line) for line in codex[8:]]
    q = (
        home
        / ".codex"
        / "sessions"
        / "2026"
        / "03"
        / "01"
        / f"rollout-2026-03-01T10-00-00-{cid}.jsonl"
    )
    q.parent.mkdir(parents=True)
    q.write_text("\n".join(codex) + "\n")
    state = home / "state"
    db = open_store(state)
    try:
        report = ingest_logs(db, config(home))
        # read every file while the connection is open: the -wal and -shm are there now
        open_files = {f.name: f.read_bytes() for f in state.iterdir() if f.is_file()}
    finally:
        db.close()
    closed_files = {f.name: f.read_bytes() for f in state.iterdir() if f.is_file()}
    assert report.sessions == 2 and report.bad_lines == 1
    assert any(n.endswith("-wal") and data for n, data in open_files.items())
    assert any(n.endswith("-shm") for n in open_files)
    assert query(home, "SELECT count(*) FROM turns WHERE user_text LIKE '%[REDACTED:%'")[0][0] == 3
    unknown = query(home, "SELECT sum(unknown_records) FROM sessions")[0][0]
    assert unknown == 2 + 4  # Claude: mystery-kind twice; Codex: world_state and future_kind twice
    for files in (open_files, closed_files):
        raw = b"\n".join(files.values()).decode("utf-8", "replace")
        for name, _text, secret in SHAPES:
            assert not survives(raw, secret), name


def test_an_older_store_is_redacted_again_on_upgrade(tmp_path: Path) -> None:
    """A store written by a version whose rules missed shapes: opening it with this one
    redacts every stored text again, rebuilds the sessions, and zeroes the old pages."""
    import sqlite_utils

    from session_ingest import migrations
    from session_ingest.schema import MIGRATIONS

    state = tmp_path / "state"
    state.mkdir()
    path = state / "skillopt-sleep.db"
    old = sqlite_utils.Database(path)
    migrations.apply(old, "ingest", MIGRATIONS[:2])  # the store as version 2 left it
    missed = [(n, t, s) for n, t, s in SHAPES if n in ("pgpassword_short", "github_fine_grained_pat",
                                                       "url_password_empty_user", "yaml_password")]  # fmt: skip
    sid = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    for i, (_n, text, _s) in enumerate(missed):
        data = {"k": "h", "t": f"please use {text}", "ts": f"2026-03-01T10:00:0{i}Z", "cwd": "/w"}
        old.execute(
            "INSERT INTO events (id, grp, source, path, offset, data) VALUES (?, ?, ?, ?, ?, ?)",
            (i + 1, sid, "claude", "/logs/x.jsonl", i * 100, json.dumps(data).encode()),
        )
    filler = json.dumps({"k": "unk", "type": "x", "raw": "z" * 400}).encode()  # pages to free
    old.conn.executemany(
        "INSERT INTO events (id, grp, source, path, offset, data) VALUES (?, ?, ?, ?, ?, ?)",
        [(100 + i, "bbbbbbbb-0000", "claude", "/logs/y.jsonl", i, filler) for i in range(2000)],
    )
    old.conn.commit()
    old.close()
    assert all(s.encode() in path.read_bytes() for _n, _t, s in missed)  # the old leak
    db = open_store(state)
    try:
        texts = [r[0] for r in db.execute(
            "SELECT user_text FROM turns WHERE session_id = ? ORDER BY idx", (sid,))]  # fmt: skip
    finally:
        db.close()
    assert len(texts) == len(missed) and all("[REDACTED:" in t for t in texts)
    raw = b"".join(f.read_bytes() for f in state.iterdir() if f.is_file()).decode(
        "utf-8", "replace"
    )
    for name, _text, secret in missed:
        assert not survives(raw, secret), name


# The shapes a hostile review found surviving, and their families (issue 35): the table's
# entries after the Docker auth config.
NEW_SHAPES = SHAPES[[n for n, _t, _s in SHAPES].index("docker_auth") + 1 :]


def test_a_skill_slug_never_holds_a_placeholder_or_a_secret() -> None:
    """Requests that paste a secret, redacted then normalized as mining does: the slug is
    made of words the requests say outside any placeholder."""
    from skillopt_sleep.mining.identity import slug
    from skillopt_sleep.mining.intents import intent

    asks = ("restart the billing worker with {}", "restart billing worker again, {}",
            "please restart the billing worker: {}")  # fmt: skip
    assert len(NEW_SHAPES) == 25
    for name, context, secret in SHAPES:
        texts = [redact(a.format(context)) for a in asks]
        said = {w for t in texts for w in intent(re.sub(r"\[REDACTED:\w+\]", " ", t))[1].split()}
        name_r = slug([intent(t)[1] for t in texts], set())
        assert not survives(name_r, secret) and "redacted" not in name_r, (name, name_r)
        assert set(name_r.split("-")) <= said, (name, name_r)


def test_a_secret_redaction_missed_never_names_a_skill() -> None:
    """Key material, a password or a hash in every request of a kind (as if redaction had
    missed it) is never a slug word: slug words are words."""
    from skillopt_sleep.mining.identity import slug
    from skillopt_sleep.mining.intents import intent

    for secret in (fill(24), "Tr0ub4dor" + fill(3), "hunter22", "0f1e2d3c4b" * 4,
                   "qwertyuiopasdfghjklzxcvbnm"):  # fmt: skip
        asks = [f"log in to the billing box with {secret} {tail}" for tail in ("now", "again", "")]
        name = slug([intent(a)[1] for a in asks], set())
        assert not survives(name, secret.lower()), (secret, name)
        assert set(name.split("-")) <= {"log", "billing", "box"}, name


def _claude_session(sid: str, day: int, request: str, correction: str) -> str:
    base = {"sessionId": sid, "cwd": "/home/dev/billing", "gitBranch": "main"}

    def at(minute: int) -> str:
        return f"2026-03-{day:02d}T10:{minute:02d}:00.000Z"

    records = [
        {**base, "type": "user", "uuid": f"{sid}-u1", "timestamp": at(0),
         "message": {"role": "user", "content": request}},
        {**base, "type": "assistant", "uuid": f"{sid}-a1", "timestamp": at(1),
         "message": {"id": f"{sid}-m1", "role": "assistant", "model": "m",
                     "content": [{"type": "text", "text": "Restarted the billing worker."}]}},
        {**base, "type": "user", "uuid": f"{sid}-u2", "timestamp": at(2),
         "message": {"role": "user", "content": correction}},
        {**base, "type": "assistant", "uuid": f"{sid}-a2", "timestamp": at(3),
         "message": {"id": f"{sid}-m2", "role": "assistant", "model": "m",
                     "content": [{"type": "text", "text": "Done, as you said."}]}},
    ]  # fmt: skip
    return "\n".join(json.dumps(r) for r in records) + "\n"


def test_secrets_reach_no_export_json_output_or_slug(isolated_home: Path) -> None:
    """Sessions over four days ask for the same thing, each pasting secrets of the shapes
    that used to survive (and the same sshpass password every time, which used to name the
    skill): ingest, mining, every ``--json`` output, ``tasks export`` and the store hold
    none of them, and the managed skill is named from the request's words."""
    from click.testing import CliRunner

    from skillopt_sleep.cli import main

    password = "Ss" + fill(10)
    ask = f"restart the billing worker with sshpass -p {password} ssh deploy@web and check it"
    groups = [NEW_SHAPES[i::4] for i in range(4)]
    project = isolated_home / ".claude" / "projects" / "-home-dev-billing"
    project.mkdir(parents=True)
    for i, group in enumerate(groups):
        sid = f"0000000{i}-aaaa-4bbb-8ccc-dddddddddddd"
        request = ask + "\n" + "\n".join(text for _n, text, _s in group[: len(group) // 2])
        correction = "no, use these instead: " + " ; ".join(
            t for _n, t, _s in group[len(group) // 2 :]
        )
        (project / f"{sid}.jsonl").write_text(_claude_session(sid, i + 1, request, correction))
    runner = CliRunner()
    outputs = []

    def cli(*args: str) -> str:
        res = runner.invoke(main, list(args))
        assert res.exit_code == 0, res.output
        outputs.append(res.output)
        return res.output

    assert json.loads(cli("ingest", "--json"))["turns"] == 8
    cli("sessions", "--json")
    assert json.loads(cli("tasks", "mine", "--json"))["recurring"] == 1
    clusters = json.loads(cli("tasks", "list", "--json", "--all"))["clusters"]
    (billing,) = [c for c in clusters if c["recurring"]]
    for task in billing["tasks"]:
        cli("tasks", "show", task["id"], "--json")
    cli("tasks", "show", billing["id"], "--json")
    export = isolated_home / "tasks.yaml"
    cli("tasks", "export", str(export))
    exported = export.read_text()
    assert "sshpass -p [REDACTED:password]" in exported  # the request itself is exported
    state = next(isolated_home.glob(".local/state/*"))
    stored = b"".join(f.read_bytes() for f in state.rglob("*") if f.is_file())
    everything = "\n".join([*outputs, exported, stored.decode("utf-8", "replace")])
    for name, _text, secret in [*NEW_SHAPES, ("sshpass_repeated", "", password)]:
        assert not survives(everything, secret), name
    skill = billing["skill"]
    assert "redacted" not in skill and "password" not in skill, skill
    assert set(skill.split("-")) <= set(re.split(r"\W+", ask)), skill


def test_a_store_written_before_the_new_shapes_is_redacted_again(tmp_path: Path) -> None:
    """A store whose events and turns hold the shapes the older rules missed (SAS, sshpass,
    base64 of a key…): opening it with this version redacts them and zeroes the old bytes."""
    import sqlite_utils

    from session_ingest import migrations
    from session_ingest.rows import rebuild
    from session_ingest.schema import MIGRATIONS

    state = tmp_path / "state"
    state.mkdir()
    path = state / "skillopt-sleep.db"
    old = sqlite_utils.Database(path)
    migrations.apply(old, "ingest", MIGRATIONS[:4])  # the store as version 4 left it
    sid = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    for i, (_n, text, _s) in enumerate(NEW_SHAPES):
        data = {
            "k": "h",
            "t": f"please run {text}",
            "ts": f"2026-03-01T10:{i:02d}:00Z",
            "cwd": "/w",
        }
        old.execute(
            "INSERT INTO events (id, grp, source, path, offset, data) VALUES (?, ?, ?, ?, ?, ?)",
            (i + 1, sid, "claude", "/logs/x.jsonl", i * 100, json.dumps(data).encode()),
        )
    kept = {"k": "h", "t": "a request with no secret", "ts": "2026-03-02T10:00:00Z", "cwd": "/w"}
    old.execute(
        "INSERT INTO events (id, grp, source, path, offset, data) VALUES (?, ?, ?, ?, ?, ?)",
        (999, "ffffffff-0000", "claude", "/logs/y.jsonl", 0, json.dumps(kept).encode()),
    )
    rebuild(old.conn, "claude", sid)
    rebuild(old.conn, "claude", "ffffffff-0000")
    old.conn.commit()
    old.close()
    assert all(s.encode() in path.read_bytes() for _n, _t, s in NEW_SHAPES)  # the old leak
    db = open_store(state)
    try:
        texts = [r[0] for r in db.execute(
            "SELECT user_text FROM turns WHERE session_id = ? ORDER BY idx", (sid,))]  # fmt: skip
        other = db.execute("SELECT user_text FROM turns WHERE session_id = 'ffffffff-0000'")
        assert [r[0] for r in other] == ["a request with no secret"]
    finally:
        db.close()
    assert len(texts) == len(NEW_SHAPES) and all("[REDACTED:" in t for t in texts)
    raw = b"".join(f.read_bytes() for f in state.iterdir() if f.is_file())
    for name, _text, secret in NEW_SHAPES:
        assert not survives(raw.decode("utf-8", "replace"), secret), name


def test_mined_text_from_before_the_rules_grew_is_redacted_on_upgrade(tmp_path: Path) -> None:
    """Tasks, cluster texts and split keys mined by a version whose rules missed a shape:
    opening the store redacts them (tasks are re-mined), and mining is stale again."""
    import sqlite_utils

    from session_ingest import migrations
    from skillopt_sleep.mining.pipeline import is_stale
    from skillopt_sleep.mining.store import MINING_MIGRATIONS

    (name, text, secret), *_ = NEW_SHAPES
    state = tmp_path / "state"
    state.mkdir()
    old = sqlite_utils.Database(state / "skillopt-sleep.db")
    open_store(state).close()  # every table as today, then the mining part as version 2 left it
    old.execute("DELETE FROM _sqlite_migrations WHERE migration_set = 'mining' AND name = ?",
                (MINING_MIGRATIONS[2][0],))  # fmt: skip
    old["mining_runs"].insert({"id": 1, "ingest_marker": "as-now"})
    old["cluster_members"].insert({"turn_id": "t1", "cluster_id": "c-1", "intent": f"use {text}",
                                   "norm": f"use {text}"})  # fmt: skip
    old["clusters"].insert({"id": "c-1", "skill": "deploy", "managed": 1,
                            "sample_intents": json.dumps([f"use {text}"]), "rules": "[]"})  # fmt: skip
    old["split_keys"].insert({"key": f"use {text}", "group_id": "g", "cluster_id": "c-1",
                              "split": "val"})  # fmt: skip
    old["tasks"].insert({"id": "t-1", "cluster_id": "c-1", "prompt": f"use {text}"})
    old.close()
    db = open_store(state)
    try:
        assert MINING_MIGRATIONS[2][0] in migrations.applied(db, "mining")
        assert is_stale(db)
        dumped = "\n".join(db.conn.iterdump())
    finally:
        db.close()
    assert not survives(dumped, secret), name
