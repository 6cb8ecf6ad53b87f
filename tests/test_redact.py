# ruff: noqa: E501 - log records stay one per line, as in the real files
"""Redaction: typed placeholders, and no planted secret ever reaches the database files."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ingest_helpers import query, run

from session_ingest.redact import redact, redact_clip

A40 = "A" * 20 + "b" * 10 + "7" * 10


def _fake_secrets() -> dict[str, str]:
    """Obviously fake secrets of each shape, built at run time (no key literal in the source)."""
    return {
        "openai_key": "sk-" + "proj-" + A40,
        "anthropic_key": "sk-" + "ant-" + "api03-" + A40,
        "github_token": "gh" + "p_" + A40[:36],
        "aws_access_key": "AK" + "IA" + "Q" * 16,
        "slack_token": "xo" + "xb-" + "1234567890-" + A40[:20],
        "google_api_key": "AI" + "za" + "S" * 35,
        "hf_token": "h" + "f_" + A40[:34],
        "stripe_key": "sk" + "_live_" + A40[:24],
        "jwt": "ey"
        + "J"
        + "hbGciOiJIUzI1"
        + ".ey"
        + "J"
        + "zdWIiOiIxMjM0"
        + "."
        + "c2lnbmF0dXJl" * 2,
    }


@pytest.mark.parametrize("kind", sorted(_fake_secrets()))
def test_each_provider_shape_gets_its_typed_placeholder(kind: str) -> None:
    secret = _fake_secrets()[kind]
    out = redact(f"use {secret} please")
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out


def test_structural_secrets() -> None:
    body = "MII" + "B" * 200
    pem = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + body + "\n-----END RSA " + "PRIVATE KEY-----"
    assert redact(f"key:\n{pem}\nafter") == "key:\n[REDACTED:private_key]\nafter"
    truncated = redact("-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + body)
    assert body not in truncated
    token = "abc" + "DEF123" * 4
    assert (
        redact(f"Authorization: Bearer {token}") == "Authorization: Bearer [REDACTED:bearer_token]"
    )
    url = "postgres://admin:" + "hunter2" + "Xy@db.local:5432/app"
    assert redact(url) == "postgres://admin:[REDACTED:url_password]@db.local:5432/app"
    value = "Zx9" + "Qw8Er7Ty6Ui5Op4"
    assert redact(f"export DB_SECRET={value}") == "export DB_SECRET=[REDACTED:secret]"
    assert redact(f'{{"api_key": "{value}"}}') == '{"api_key": "[REDACTED:secret]"}'
    assert redact("password=" + "tr0ub4dor&3xyzzyq").startswith("password=[REDACTED:password]")


def test_ordinary_text_is_untouched() -> None:
    for text in ("the monkey ate a banana", "TOKEN_LIMIT=4096", "see https://example.com/a/b",
                 "path: /usr/local/lib/python3.11/site-packages", "task-list-for-today-and-tomorrow",
                 "key: value", "author = alexander_the_great"):  # fmt: skip
        assert redact(text) == text


def test_clip_never_splits_a_secret_visible() -> None:
    secret = _fake_secrets()["openai_key"]
    text = "x" * 95 + secret + "y" * 500
    out = redact_clip(text, 100)
    assert secret[:10] not in out and out.endswith("chars]")


def test_planted_secrets_never_reach_the_database_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    secrets = _fake_secrets()
    blob = " ".join(secrets.values())
    sid = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    base = {"sessionId": sid, "cwd": "/w", "timestamp": "2026-03-01T10:00:00Z"}
    claude = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": f"deploy with {blob}"}},
        {**base, "type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": f"Using {blob}"},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": f"curl -H 'Authorization: Bearer {secrets['openai_key']}'"}}]}},
        {**base, "type": "user", "uuid": "r1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": f"env: {blob}", "is_error": True}]}},
        {**base, "type": "mystery-kind", "uuid": "x1", "payload": blob},
        {**base, "type": "custom-title", "customTitle": f"title {blob}"},
    ]  # fmt: skip
    p = home / ".claude" / "projects" / "-w" / f"{sid}.jsonl"
    p.parent.mkdir(parents=True)
    p.write_text("\n".join(json.dumps(r) for r in claude) + "\n{broken " + blob + "\n")
    cid = "019a0000-0000-7000-8000-0000000000aa"

    def env(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-03-01T10:00:00Z", "type": kind, "payload": payload})

    codex = [
        env("session_meta", {"id": cid, "cwd": "/w", "originator": "codex_cli_rs"}),
        env("event_msg", {"type": "user_message", "message": f"use {blob}"}),
        env("response_item", {"type": "function_call", "name": "shell", "call_id": "c", "arguments": json.dumps({"command": ["echo", blob]})}),
        env("response_item", {"type": "function_call_output", "call_id": "c", "output": f"Exit code: 0\nOutput:\n{blob}"}),
        env("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": blob}]}),
        env("event_msg", {"type": "error", "message": blob}),
        env("future_kind", {"secret": blob}),
    ]  # fmt: skip
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
    report = run(home)
    assert report.sessions == 2 and report.bad_lines == 1
    assert query(home, "SELECT count(*) FROM turns WHERE user_text LIKE '%[REDACTED:%'")[0][0] == 2
    raw = b"".join(f.read_bytes() for f in (home / "state").iterdir() if f.is_file())
    assert raw
    for kind, secret in secrets.items():
        assert secret.encode() not in raw, kind
        assert secret[4:24].encode() not in raw, kind


_SECRET_TEXT = st.lists(
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
            "=",
            ":",
            " ",
            "\n",
            "\t",
            '"',
            "'",
            "_",
            "-",
            "aB3",
            "x9Qz",
            "Zq81kLm0PpQ2rS3t",
            "ghp_",
            "sk-",
            "ſ",
            "ı",
            "\u212a",
            "İ",
            "é",
            "[REDACTED:x]",
            "://",
            "@",
        ]
    ),  # fmt: skip
    max_size=40,
).map("".join)


@given(_SECRET_TEXT)
@settings(max_examples=400, deadline=None)
def test_fast_secret_rule_equals_the_plain_regex(text: str) -> None:
    """The ``=``/``:``-guided scan and name pre-check change nothing the rule would do."""
    redact_mod = importlib.import_module("session_ingest.redact")

    rule = redact_mod._BY_KIND["secret"]
    assert redact_mod._sub_secret(text) == rule[2].sub(rule[3], text)
    if not redact_mod._may_name_secret(text):
        assert rule[2].sub(rule[3], text) == text
