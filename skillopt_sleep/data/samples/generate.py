"""Write the bundled demo session logs (fictional projects, original text).

    python skillopt_sleep/data/samples/generate.py

Regenerates ``claude/projects/...`` and ``codex/sessions/...`` next to this file, in the
Claude Code 2.1.x and Codex 0.12x JSONL shapes (see shared docs/session_formats.md). The
output is committed; this script only documents how it was made and is deterministic.

Three recurring task kinds over two weeks, with corrections that state the user's rules:

* commit messages (Claude Code, through the user's own ``commit-message`` Skill): 50
  requests, each with the staged diff pasted (``diffs.py``), so a replay has what it needs.
  The agent's habit is a long message under a heading, with an explanation, or the diff
  pasted back; seven times the user corrects it ("keep the whole message under 12 words",
  "don't add ## headings", "don't include diff lines"), and those words are what mining
  turns into rule judges (``max_words``, ``not_contains``). The diff rule is there because
  the 0.5B target often pastes the diff back, and a pasted diff cut at the answer's token
  limit is short enough to pass the word limit: without it a failure scores as a pass. A
  "subject under 50 characters" correction was left out on purpose: the embedded 0.5B
  target keeps only about half its subjects that short even when the skill says so;
* pytest regression tests (Claude Code and Codex); correction "use pytest not unittest";
* summaries of failing CI logs (Codex); corrections "keep it under 80 words, as bullet
  points" and "start with the failing job name";

plus one-off requests that recur in nothing.
"""

from __future__ import annotations

import json
import shutil
import sys
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from diffs import CHANGES, diff_text  # noqa: E402

NS = uuid.UUID("6c1f3a52-5d0e-4c47-9a57-2b1f0e6b9d10")
CWD = "/home/dev/tidepool"
CODEX_CWD = "/home/dev/harbor-api"
SKILLS = "/home/dev/.claude/skills"


def uid(*parts: object) -> str:
    return str(uuid.uuid5(NS, "/".join(map(str, parts))))


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


# How the user asks for a commit message; {topic} names the change in their words.
COMMIT_ASKS = [
    "write the commit message for the staged diff below, it's the {topic}",
    "commit message for the staged diff below please, it's the {topic}",
    "can you write the commit message for the staged diff below? it's the {topic}",
    "draft the commit message for the staged diff below, it's the {topic}",
]
COMMIT_CORRECTIONS = [
    "too long. keep the whole message under 12 words",
    "don't add ## headings, it's a commit message",
    "no explanation please, just the message. keep it under 12 words",
    "too long again: one line, under 12 words",
    "don't include diff lines, I can see the diff. just the message",
]


def commit_request(i: int) -> str:
    *_, topic, _message = CHANGES[i]
    ask = COMMIT_ASKS[i % len(COMMIT_ASKS)].format(topic=topic)
    return f"{ask}\n\n```diff\n{diff_text(*CHANGES[i])}\n```"


def commit_habit(i: int, correction: str) -> str:
    """The answer the agent gives before the user corrects it: the diff pasted back, or a
    long message under a heading."""
    if "diff" in correction:
        return f"```diff\n{diff_text(*CHANGES[i])}\n```"
    path, *_, topic, message = CHANGES[i]
    kind, _, subject = message.partition(": ")
    return (
        "## Commit message\n\nHere is a commit message for the staged change:\n\n"
        f"```\n{kind}: {subject} "
        f"in {path.rsplit('/', 1)[-1]}\n\nThis commit updates {path} for {topic}. It keeps "
        "the behaviour of the rest of the module unchanged and makes the intent of the code "
        "clearer for future readers.\n```"
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

REGRESSION_ASKS = [
    ("add a pytest regression test for the negative tide height bug",
     "use pytest not unittest, and put it in tests/test_tides.py"),
    ("write a regression test with pytest that reproduces issue 37", None),
    ("add a pytest regression test for the timezone offset bug in harbor_api/schedule.py", None),
    ("please add a regression test covering the crash in parse_station_csv", None),
    ("add a test that catches the regression from bug 112 using pytest", None),
    ("add a pytest regression test for bug #58 in the harmonics module", None),
    ("add a pytest regression test for the empty csv crash", None),
    ("write a pytest regression test for bug 140 in the chart module", None),
    ("add a regression test with pytest for the unit conversion bug", None),
    ("add a pytest regression test covering the leap year date bug", None),
    ("regression test in pytest for the off-by-one in the hourly series", None),
    ("add a pytest regression test so the NaN height bug never comes back", None),
]  # fmt: skip
CI_ASKS = [
    ("summarize the failing CI log for the last push", None),
    ("why did CI fail? summarize the log for job 4821",
     "too long. keep it under 80 words, as bullet points"),
    ("give me a short summary of this failing ci run", None),
    ("summarise the CI failure log and tell me the root cause",
     "no, start with the failing job name. keep it under 80 words"),
    ("read the failing CI log and summarize what broke", None),
    ("CI is red again, summarize the failing log", None),
    ("CI failed on main, summarize the log", None),
    ("summarize why the CI pipeline failed this time", None),
    ("the build is red, summarize the failing CI log", None),
    ("summarize the failed CI job log for the lint step", None),
    ("CI broke again, summarise the failing log", None),
    ("what failed in CI? summarize the log", None),
]  # fmt: skip
ONE_OFFS = [
    ("claude", "rename the --verbose flag to --debug in cli.py"),
    ("claude", "what is the difference between a neap tide and a spring tide"),
    ("codex", "set up a dependabot config for the docker base image"),
    ("claude", "draw an ascii sketch of the tide chart layout"),
    ("codex", "explain what the X-Request-Id middleware does"),
    ("claude", "translate the README intro into Spanish"),
    ("codex", "why is uvicorn logging every request twice?"),
]


def plan() -> list[tuple[int, str, str, str, str | None, str, str]]:
    """(day, source, kind, request, correction, first answer, accepted answer), by day."""
    rows = []
    for i, change in enumerate(CHANGES):
        correction = COMMIT_CORRECTIONS[(i // 7) % len(COMMIT_CORRECTIONS)] if i % 7 == 3 else None
        first = commit_habit(i, correction) if correction else change[-1]
        rows.append((2 + i * 14 // len(CHANGES), "claude", "commit", commit_request(i),
                     correction, first, change[-1]))  # fmt: skip
    for j, (ask, correction) in enumerate(REGRESSION_ASKS):
        source = "claude" if j % 2 == 0 else "codex"
        first = REGRESSION_ANSWER.replace("pytest", "unittest") if correction else REGRESSION_ANSWER
        rows.append((2 + j, source, "regression", ask, correction, first, REGRESSION_ANSWER))
    for j, (ask, correction) in enumerate(CI_ASKS):
        first = CI_ANSWER + "\n" + CI_ANSWER if correction else CI_ANSWER
        rows.append((2 + j, "codex", "ci", ask, correction, first, CI_ANSWER))
    for j, (source, ask) in enumerate(ONE_OFFS):
        answer = "Done. I made the change and ran the tests; all 48 pass."
        rows.append((3 + 2 * j, source, "oneoff", ask, None, answer, answer))
    return sorted(rows, key=lambda r: r[0])


COMMANDS = {
    "regression": ("uv run pytest tests/test_tides.py -q", "1 passed in 0.08s"),
    "ci": ("gh run view --log-failed", "FAILED tests/test_api.py::test_station_lookup - KeyError"),
    "oneoff": ("ls", "README.md\nsrc\ntests"),
}


class Claude:
    """Records in the Claude Code 2.1.x shape: one record per content block."""

    def __init__(self, sid: str, start: datetime, cwd: str = CWD) -> None:
        self.sid, self.t, self.parent, self.lines, self.n = sid, start, None, [], 0
        self.cwd = cwd

    def _base(self, kind: str) -> dict:
        self.n += 1
        self.t += timedelta(seconds=7, milliseconds=311 * self.n % 1000)
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
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
                            + skill_body(name),
                        }
                    ],
                },
            }
        )
        self.lines.append(rec)


def skill_body(name: str) -> str:
    """What Claude Code injects when the skill runs: SKILL.md without its frontmatter."""
    text = (HERE / "skills" / name / "SKILL.md").read_text()
    return text.split("---\n", 2)[2].strip() if text.startswith("---\n") else text


def claude_session(i: int, row: tuple) -> None:
    day, _source, kind, request, correction, first, accepted = row
    sid = uid("claude", i)
    c = Claude(sid, datetime(2026, 3, day, 9 + i % 8, 5 * (i % 11), 3))
    c.user(request)
    if kind == "commit":
        c.skill("commit-message")  # the diff is pasted: nothing to run
    else:
        cmd, out = COMMANDS[kind]
        c.tool(
            "Bash",
            {"command": cmd, "description": "Inspect"},
            out,
            {"stdout": out, "stderr": "", "interrupted": False, "isImage": False},
        )
    c.text(first)
    if correction:
        c.user(correction)
        c.text(accepted)
        c.user("thanks, perfect")
        c.text("Glad it helps.")
    write_jsonl(HERE / "claude" / "projects" / CWD.replace("/", "-") / f"{sid}.jsonl", c.lines)


# One Codex exchange: (prompt, final answer, (shell command, its output)); an empty command
# runs nothing.
Exchange = tuple[str, str, tuple[str, str]]


def codex_records(sid: str, start: datetime, cwd: str, exchanges: list[Exchange],
                  ids: Callable[[str, int], str]) -> list[dict]:  # fmt: skip
    """A Codex 0.12x rollout: ``session_meta``, then per exchange ``task_started``,
    ``turn_context``, the user message, an ``exec_command`` call and its output, the final
    answer, ``token_count`` and ``task_complete``. ``ids(what, n)`` is a uuid for the n-th
    exchange's ``"codex-turn"`` or ``"call"`` (the caller's own, so its files stay stable)."""
    t = start
    lines: list[dict] = []

    def add(typ: str, payload: dict, dt: float = 0.4) -> None:
        nonlocal t
        t += timedelta(seconds=dt)
        lines.append({"timestamp": iso(t), "type": typ, "payload": payload})

    meta = {"id": sid, "timestamp": iso(t), "cwd": cwd, "originator": "codex_cli_rs",
            "cli_version": "0.128.0", "source": "cli", "model_provider": "openai",
            "base_instructions": {"text": "You are Codex, a coding agent."}}  # fmt: skip
    add("session_meta", meta)
    for n, (prompt, answer, (cmd, out)) in enumerate(exchanges):
        turn_id = "019c" + ids("codex-turn", n)[4:]
        add("event_msg", {"type": "task_started", "turn_id": turn_id,
                          "model_context_window": 258400})  # fmt: skip
        if n == 0:
            env = f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n"
            env += "</environment_context>"
            add("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": env}]})  # fmt: skip
        add("turn_context", {"turn_id": turn_id, "cwd": cwd, "approval_policy": "on-request",
                             "sandbox_policy": {"type": "workspace-write"},
                             "model": "gpt-5.2-codex", "summary": "auto"})  # fmt: skip
        add("response_item", {"type": "message", "role": "user",
                              "content": [{"type": "input_text", "text": prompt}]})  # fmt: skip
        add("event_msg", {"type": "user_message", "message": prompt, "images": []})
        if cmd:
            call = f"call_{ids('call', n)[:24]}"
            args = json.dumps({"cmd": cmd, "workdir": cwd})
            add("response_item", {"type": "function_call", "name": "exec_command",
                                  "arguments": args, "call_id": call}, 2.1)  # fmt: skip
            output = (f"Chunk ID: 7f3a{n}1\nWall time: 0.8 seconds\nProcess exited with code 0"
                      f"\nOriginal token count: 40\nOutput:\n{out}\n")  # fmt: skip
            add("response_item", {"type": "function_call_output", "call_id": call,
                                  "output": output}, 1.2)  # fmt: skip
        add("event_msg", {"type": "agent_message", "message": answer,
                          "phase": "final_answer"}, 3.3)  # fmt: skip
        add("response_item", {"type": "message", "role": "assistant", "phase": "final_answer",
                              "content": [{"type": "output_text", "text": answer}]})  # fmt: skip
        usage = {"input_tokens": 20110, "cached_input_tokens": 18944, "output_tokens": 210,
                 "reasoning_output_tokens": 64, "total_tokens": 20320}  # fmt: skip
        add("event_msg", {"type": "token_count",
                          "info": {"total_token_usage": usage, "last_token_usage": usage,
                                   "model_context_window": 258400}})  # fmt: skip
        add("event_msg", {"type": "task_complete", "turn_id": turn_id,
                          "last_agent_message": answer}, 0.1)  # fmt: skip
    return lines


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def codex_session(i: int, row: tuple) -> None:
    day, _source, kind, request, correction, first, accepted = row
    sid = "019c" + uid("codex", i)[4:]
    t = datetime(2026, 3, day, 14 + i % 6, 3 * (i % 17), 41)
    exchanges = [(request, first, COMMANDS[kind])]
    if correction:
        exchanges.append((correction, accepted, COMMANDS[kind]))
    lines = codex_records(sid, t, CODEX_CWD, exchanges, lambda what, n: uid(what, i, n))
    end = datetime.strptime(lines[-1]["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ")
    local = end.replace(microsecond=0) - timedelta(seconds=len(lines) * 0.4)
    folder = HERE / "codex" / "sessions" / "2026" / "03" / f"{day:02d}"
    write_jsonl(folder / f"rollout-{local.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl", lines)


def main() -> None:
    for sub in ("claude", "codex"):
        shutil.rmtree(HERE / sub, ignore_errors=True)
    for i, row in enumerate(plan()):
        (claude_session if row[1] == "claude" else codex_session)(i, row)


if __name__ == "__main__":
    main()
