"""Write the bundled demo session logs (fictional projects, original text).

    python skillopt_sleep/data/samples/generate.py

Regenerates ``claude/projects/...`` and ``codex/sessions/...`` next to this file, in the
Claude Code 2.1.x and Codex 0.12x JSONL shapes (see shared docs/session_formats.md). The
output is committed; this script only documents how it was made and is deterministic.

Three recurring task kinds, paraphrased over 7 days, with corrections that teach rules:
commit messages (Claude, through the user's ``commit-message`` Skill), pytest regression
tests (Claude and Codex), failing-CI-log summaries (Codex); plus one-off requests.
"""

from __future__ import annotations

import json
import shutil
import uuid
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
NS = uuid.UUID("6c1f3a52-5d0e-4c47-9a57-2b1f0e6b9d10")
CWD = "/home/dev/tidepool"
CODEX_CWD = "/home/dev/harbor-api"
SKILLS = "/home/dev/.claude/skills"


def uid(*parts: object) -> str:
    return str(uuid.uuid5(NS, "/".join(map(str, parts))))


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


COMMIT_ANSWER = (
    "fix: clamp tide heights below chart datum\n\n"
    "Negative readings from the harbour sensor were dropped; keep them and clamp\n"
    "only when rendering the chart."
)
COMMIT_ANSWER_BAD = (
    "🐛 Fixed the problem where negative tide heights coming from the harbour sensor were dropped"
)
REGRESSION_ANSWER = (
    "Added tests/test_tides.py::test_negative_height_is_kept, a pytest test that feeds a "
    "-0.3 m reading and asserts it survives parsing. It fails on main and passes with the fix."
)
CI_ANSWER = (
    "- Job `test (3.12)` failed in tests/test_api.py::test_station_lookup\n"
    "- Cause: KeyError 'station_id' after the API renamed the field to 'stationId'\n"
    "- Fix: map the new field name in harbor_api/client.py"
)

# (day, source, kind, request, correction or None)
PLAN = [
    (
        2,
        "claude",
        "commit",
        "write a conventional commit message for the staged changes",
        "no, the subject line must be under 50 chars and use the imperative. don't use emojis",
    ),
    (
        2,
        "claude",
        "regression",
        "add a pytest regression test for the negative tide height bug",
        "use pytest not unittest, and put it in tests/test_tides.py",
    ),
    (2, "codex", "ci", "summarize the failing CI log for the last push", None),
    (3, "claude", "commit", "draft a commit msg for what I have staged", None),
    (
        3,
        "codex",
        "ci",
        "why did CI fail? summarize the log for job 4821",
        "too long. keep it under 80 words, as bullet points",
    ),
    (3, "claude", "oneoff", "rename the --verbose flag to --debug in cli.py", None),
    (
        4,
        "claude",
        "regression",
        "write a regression test with pytest that reproduces issue 37",
        None,
    ),
    (
        4,
        "codex",
        "regression",
        "add a pytest regression test for the timezone offset bug in harbor_api/schedule.py",
        None,
    ),
    (
        4,
        "claude",
        "commit",
        "commit message for the staged diff in src/tidepool/chart.py please",
        None,
    ),
    (5, "codex", "ci", "give me a short summary of this failing ci run", None),
    (5, "claude", "oneoff", "what is the difference between a neap tide and a spring tide", None),
    (5, "claude", "commit", "can you write the commit message for these staged changes", None),
    (
        6,
        "claude",
        "regression",
        "please add a regression test covering the crash in parse_station_csv",
        None,
    ),
    (
        6,
        "codex",
        "ci",
        "summarise the CI failure log and tell me the root cause",
        "no, start with the failing job name. keep it under 80 words",
    ),
    (6, "codex", "oneoff", "set up a dependabot config for the docker base image", None),
    (7, "claude", "commit", "write the commit msg for my staged work", None),
    (
        7,
        "codex",
        "regression",
        "add a test that catches the regression from bug 112 using pytest",
        None,
    ),
    (7, "claude", "oneoff", "draw an ascii sketch of the tide chart layout", None),
    (8, "codex", "ci", "read the failing CI log and summarize what broke", None),
    (8, "claude", "commit", "conventional commit message for the staged changes in tides.py", None),
    (
        8,
        "claude",
        "regression",
        "add a pytest regression test for bug #58 in the harmonics module",
        None,
    ),
    (8, "codex", "oneoff", "explain what the X-Request-Id middleware does", None),
    (9, "codex", "ci", "CI is red again, summarize the failing log", None),
    (9, "claude", "oneoff", "translate the README intro into Spanish", None),
]

# A second week of the same three kinds, so each has enough tasks for a val split the
# gate can decide on (a handful of val tasks is "underpowered" by design).
MORE = {
    "commit": [
        "write me a commit message for the staged files",
        "commit msg for the staged tide table changes",
        "please draft the commit message for what's staged in chart.py",
        "staged changes are ready, write the conventional commit message",
        "give me a commit message for the staged harmonics fix",
        "write a commit message for the staged refactor of the sensor reader",
        "draft a conventional commit for the staged docs update",
        "commit message please, for the staged changes to the csv parser",
        "write the commit message for my staged changes to units.py",
        "need a commit message for the staged bugfix in the plotting code",
        "conventional commit message for the staged rename of tide_level",
        "what should the commit message be for these staged changes in api.py",
    ],
    "regression": [
        "add a pytest regression test for the empty csv crash",
        "write a pytest regression test for bug 140 in the chart module",
        "add a regression test with pytest for the unit conversion bug",
        "please write a pytest test that reproduces issue 151",
        "add a pytest regression test covering the leap year date bug",
        "regression test in pytest for the off-by-one in the hourly series",
        "add a pytest regression test for the station id lookup bug",
        "write a regression test for bug 163 using pytest",
        "add a pytest regression test so the NaN height bug never comes back",
        "pytest regression test for the duplicate reading bug in ingest.py",
        "add a regression test with pytest for issue 170 in the parser",
        "write a pytest regression test for the rounding bug in harmonics",
    ],
    "ci": [
        "summarize the failing CI log for job 4903",
        "CI failed on main, summarize the log",
        "give me a summary of the failing CI run on my branch",
        "summarize why the CI pipeline failed this time",
        "the build is red, summarize the failing CI log",
        "summarize the CI failure for the last merge",
        "read this failing CI output and summarize it",
        "summarize the failed CI job log for the lint step",
        "short summary of the failing CI log please",
        "CI broke again, summarise the failing log",
        "summarize the failing CI log for the python 3.13 job",
        "what failed in CI? summarize the log",
    ],
}
SOURCES = {"commit": "claude", "regression": "codex", "ci": "codex"}
for _kind, _requests in MORE.items():
    for _j, _request in enumerate(_requests):
        PLAN.append((10 + _j // 2, SOURCES[_kind], _kind, _request, None))

ANSWERS = {
    "commit": COMMIT_ANSWER,
    "regression": REGRESSION_ANSWER,
    "ci": CI_ANSWER,
    "oneoff": "Done. I made the change and ran the tests; all 48 pass.",
}
COMMANDS = {
    "commit": ("git diff --staged", "src/tidepool/chart.py | 4 ++--\n 1 file changed"),
    "regression": ("uv run pytest tests/test_tides.py -q", "1 passed in 0.08s"),
    "ci": ("gh run view --log-failed", "FAILED tests/test_api.py::test_station_lookup - KeyError"),
    "oneoff": ("ls", "README.md\nsrc\ntests"),
}


class Claude:
    """Records in the Claude Code 2.1.x shape: one record per content block."""

    def __init__(self, sid: str, start: datetime) -> None:
        self.sid, self.t, self.parent, self.lines, self.n = sid, start, None, [], 0

    def _base(self, kind: str) -> dict:
        self.n += 1
        self.t += timedelta(seconds=7, milliseconds=311 * self.n % 1000)
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": self.sid,
            "version": "2.1.42",
            "gitBranch": "main",
            "type": kind,
            "uuid": uid(self.sid, self.n),
            "timestamp": iso(self.t),
        }
        self.parent = rec["uuid"]
        return rec

    def user(self, text: str) -> None:
        rec = self._base("user")
        rec.update(
            {
                "message": {"role": "user", "content": text},
                "permissionMode": "default",
                "promptId": uid(self.sid, "p", self.n),
            }
        )
        self.lines.append(rec)

    def _assistant(self, block: dict, stop: str | None) -> None:
        rec = self._base("assistant")
        rec["message"] = {
            "model": "claude-sonnet-4-5-20250929",
            "id": f"msg_{uid(self.sid, 'm', self.n)[:24]}",
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 12,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 18210,
                "output_tokens": 95,
                "service_tier": "standard",
            },
        }
        rec["requestId"] = f"req_{uid(self.sid, 'r', self.n)[:24]}"
        self.lines.append(rec)

    def tool(self, name: str, inp: dict, output: str, result: dict) -> str:
        tid = f"toolu_{uid(self.sid, 't', self.n)[:24]}"
        self._assistant({"type": "tool_use", "id": tid, "name": name, "input": inp}, "tool_use")
        src = self.parent
        rec = self._base("user")
        rec.update(
            {
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": tid,
                            "type": "tool_result",
                            "content": output,
                            "is_error": False,
                        }
                    ],
                },
                "toolUseResult": result,
                "sourceToolAssistantUUID": src,
            }
        )
        self.lines.append(rec)
        return tid

    def text(self, text: str) -> None:
        self._assistant({"type": "text", "text": text}, "end_turn")
        rec = self._base("system")
        rec.update({"subtype": "turn_duration", "durationMs": 14250, "isMeta": False})
        self.lines.append(rec)

    def skill(self, name: str) -> None:
        tid = self.tool(
            "Skill",
            {"skill": name},
            f"Launching skill: {name}",
            {"success": True, "commandName": name},
        )
        rec = self._base("user")
        rec.update(
            {
                "isMeta": True,
                "sourceToolUseID": tid,
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": f"Base directory for this skill: {SKILLS}/{name}\n\n"
                            "# Commit messages\n"
                            "Write a conventional commit message for the staged diff.",
                        }
                    ],
                },
            }
        )
        self.lines.append(rec)


def claude_session(i: int, day: int, kind: str, request: str, correction: str | None) -> None:
    sid = uid("claude", i)
    c = Claude(sid, datetime(2026, 3, day, 9 + i % 8, 5 * (i % 11), 3))
    c.user(request)
    if kind == "commit":
        c.skill("commit-message")
    cmd, out = COMMANDS[kind]
    c.tool(
        "Bash",
        {"command": cmd, "description": "Inspect"},
        out,
        {"stdout": out, "stderr": "", "interrupted": False, "isImage": False},
    )
    c.text(COMMIT_ANSWER_BAD if (correction and kind == "commit") else ANSWERS[kind])
    if correction:
        c.user(correction)
        c.text(ANSWERS[kind])
        c.user("thanks, perfect")
        c.text("Glad it helps.")
    folder = HERE / "claude" / "projects" / CWD.replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in c.lines))


def codex_session(i: int, day: int, kind: str, request: str, correction: str | None) -> None:
    sid = "019c" + uid("codex", i)[4:]
    t = datetime(2026, 3, day, 14 + i % 6, 3 * (i % 17), 41)
    lines: list[dict] = []

    def add(typ: str, payload: dict, dt: float = 0.4) -> None:
        nonlocal t
        t += timedelta(seconds=dt)
        lines.append({"timestamp": iso(t), "type": typ, "payload": payload})

    add(
        "session_meta",
        {
            "id": sid,
            "timestamp": iso(t),
            "cwd": CODEX_CWD,
            "originator": "codex_cli_rs",
            "cli_version": "0.128.0",
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": {"text": "You are Codex, a coding agent."},
        },
    )
    turns = [(request, ANSWERS[kind])]
    if correction:
        turns = [(request, ANSWERS[kind] + "\n" + ANSWERS[kind]), (correction, ANSWERS[kind])]
    for n, (prompt, answer) in enumerate(turns):
        turn_id = "019c" + uid("codex-turn", i, n)[4:]
        add(
            "event_msg",
            {"type": "task_started", "turn_id": turn_id, "model_context_window": 258400},
        )
        if n == 0:
            add(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": f"<environment_context>\n  <cwd>{CODEX_CWD}</cwd>\n"
                            f"  <shell>bash</shell>\n</environment_context>",
                        }
                    ],
                },
            )
        add(
            "turn_context",
            {
                "turn_id": turn_id,
                "cwd": CODEX_CWD,
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write"},
                "model": "gpt-5.2-codex",
                "summary": "auto",
            },
        )
        add(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": prompt}],
            },
        )
        add("event_msg", {"type": "user_message", "message": prompt, "images": []})
        cmd, out = COMMANDS[kind]
        call = f"call_{uid('call', i, n)[:24]}"
        add(
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": cmd, "workdir": CODEX_CWD}),
                "call_id": call,
            },
            2.1,
        )
        add(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": call,
                "output": f"Chunk ID: 7f3a{n}1\nWall time: 0.8 seconds\nProcess "
                f"exited with code 0\nOriginal token count: 40\nOutput:\n{out}\n",
            },
            1.2,
        )
        add("event_msg", {"type": "agent_message", "message": answer, "phase": "final_answer"}, 3.3)
        add(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "phase": "final_answer",
                "content": [{"type": "output_text", "text": answer}],
            },
        )
        usage = {
            "input_tokens": 20110,
            "cached_input_tokens": 18944,
            "output_tokens": 210,
            "reasoning_output_tokens": 64,
            "total_tokens": 20320,
        }
        add(
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": usage,
                    "last_token_usage": usage,
                    "model_context_window": 258400,
                },
            },
        )
        add(
            "event_msg",
            {"type": "task_complete", "turn_id": turn_id, "last_agent_message": answer},
            0.1,
        )
    local = t.replace(microsecond=0) - timedelta(seconds=len(lines) * 0.4)
    folder = HERE / "codex" / "sessions" / "2026" / "03" / f"{day:02d}"
    folder.mkdir(parents=True, exist_ok=True)
    name = f"rollout-{local.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl"
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in lines))


def main() -> None:
    for sub in ("claude", "codex"):
        shutil.rmtree(HERE / sub, ignore_errors=True)
    for i, (day, source, kind, request, correction) in enumerate(PLAN):
        (claude_session if source == "claude" else codex_session)(i, day, kind, request, correction)


if __name__ == "__main__":
    main()
