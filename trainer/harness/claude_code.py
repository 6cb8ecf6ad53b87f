"""The target inside Claude Code: `claude -p` with "/<skill> <request>" on stdin, in the copy.

Facts this relies on (Claude Code 2.1.332, checked against the embedded llama.cpp server,
which speaks `/v1/messages`):

* The skill goes to `<copy>/.claude/skills/<name>/SKILL.md`; `/<name>` at the start of the
  prompt invokes it, and the transcript then holds an `isMeta` user record "Base directory
  for this skill: <dir>\\n\\n<body>…". The stream-json output does not show the body.
* `--tools` restricts the tool set (`--allowedTools` alone does not). `--permission-mode
  dontAsk` with the same list in `--allowedTools` never prompts and, unlike
  `bypassPermissions`, also runs as root. `--max-turns` bounds the agent loop;
  `CLAUDE_CODE_MAX_OUTPUT_TOKENS` caps each model request (an answer that runs past it is
  resumed three times, then the result says `"api_error": "max_output_tokens"`: the
  attempt failed, not the endpoint); `API_TIMEOUT_MS` must cover a
  slow local prefill (the default 10 minutes does not, for a 1.5B model on one thread).
* `--strict-mcp-config` without `--mcp-config`: no MCP servers, not even the repo's.
  `--setting-sources user` reads only the scratch home's settings, never the repository's
  `.claude/settings*.json` (hooks, permissions, `env`, `apiKeyHelper`: `claude -p` skips
  the trust dialog that would guard them); that home's settings say `disableAllHooks`.
  Project skills in `.claude/skills/` are still found.
* The prompt may come on stdin; a leading `/<name>` there invokes the skill as in argv.
* The transcript is `$HOME/.claude/projects/<sanitized cwd>/<--session-id>.jsonl`.
* The system prompt and tool schemas (~4.3k tokens with the tools above) hold no path; the
  working directory, git status and date come after them, so the prompt prefix is the
  same for every rollout and llama.cpp's prefix cache serves it (448 s uncached, 13 s
  cached for the 0.5B model on one busy thread).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from trainer.backends.base import InfraError
from trainer.harness.base import HarnessRollout
from trainer.harness.cli import CLAUDE_CODE
from trainer.harness.slots import Slot
from trainer.harness.transcript import Transcript, own_file, parse_claude
from trainer.skill import SkillDoc

QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",  # no telemetry, updates, bug reports
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
}


class ClaudeCodeRollout(HarnessRollout):
    kind = CLAUDE_CODE
    default_hosts = ("api.anthropic.com", "console.anthropic.com", "claude.ai")
    provider_url = "https://api.anthropic.com"

    def skill_path(self, name: str) -> str:
        return f".claude/skills/{name}/SKILL.md"

    def flags(self) -> list[str]:
        s = self.settings
        tools = ",".join(s.tools)
        flags = ["-p", "--output-format", "stream-json", "--verbose", "--tools", tools]
        flags += ["--allowedTools", tools, "--permission-mode", "dontAsk"]
        flags += ["--max-turns", str(s.max_turns), "--strict-mcp-config"]
        flags += ["--setting-sources", "user"]
        if s.model:
            flags += ["--model", s.model]
        return flags

    def argv(self, slot: Slot) -> list[str]:
        slot.session = str(uuid.uuid4())
        return [self.cli.path, *self.flags(), "--session-id", slot.session]

    def invocation(self, name: str, prompt: str) -> str:
        return f"/{name} {prompt}"

    def cli_env(self, slot: Slot) -> dict[str, str]:
        s = self.settings
        env = dict(QUIET_ENV)
        env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] = str(s.max_output_tokens)
        env["API_TIMEOUT_MS"] = str(int(s.timeout_s * 1000))
        env["CLAUDE_CODE_MAX_RETRIES"] = "2"  # a resumed night retries an InfraError anyway
        base_url, key = self.cli_base_url(), self.cli_api_key()
        if base_url:
            env["ANTHROPIC_BASE_URL"] = base_url.removesuffix("/v1")
        if key:
            env["ANTHROPIC_API_KEY"] = key
        return env

    def build_template(self, home: Path) -> None:
        claude = home / ".claude"
        claude.mkdir(mode=0o700)
        # -p skips onboarding and the trust dialog; settings stay the defaults but for
        # hooks, so the agent behaves as a user's would.
        (claude / "settings.json").write_text('{"disableAllHooks": true}\n')

    def login_path(self, home: Path) -> Path:
        return home / ".claude" / ".credentials.json"

    def read_transcript(self, slot: Slot, skill: SkillDoc, name: str) -> Transcript:
        found = list((slot.home / ".claude" / "projects").glob(f"*/{slot.session}.jsonl"))
        if not found:
            raise InfraError(f"claude wrote no transcript ({_stderr_tail(slot)})")
        return parse_claude(own_file(slot.home, found[0]), skill.body)

    def finish(self, slot: Slot, tr: Transcript) -> dict[str, Any]:
        """The `result` event is Claude's own summary: its answer and token totals win."""
        result = _result_event(slot.stdout)
        if not result:
            return {"terminal_reason": "no result event"}
        if result.get("api_error") == "max_output_tokens":
            # The model kept writing past CLAUDE_CODE_MAX_OUTPUT_TOKENS, resumed and ran past
            # it again until Claude Code gave up: the attempt failed, the endpoint did not.
            # The answer is what the model last wrote (the result is Claude Code's complaint).
            tr.output_capped, tr.api_error = True, ""
        elif isinstance(result.get("result"), str):
            tr.answer = result["result"]
        usage = result.get("usage") if isinstance(result.get("usage"), dict) else {}
        if usage:
            cached = int(usage.get("cache_read_input_tokens") or 0)
            created = int(usage.get("cache_creation_input_tokens") or 0)
            tr.input_tokens = int(usage.get("input_tokens") or 0) + cached + created
            tr.cached_input_tokens = cached
            tr.output_tokens = int(usage.get("output_tokens") or 0)
        if result.get("is_error") and result.get("api_error_status"):
            tr.api_error = f"status {result['api_error_status']}: {str(result.get('result'))[:200]}"
        return {
            "terminal_reason": str(result.get("subtype", "")),
            "turns": result.get("num_turns"),
            "cli_cost_usd": result.get("total_cost_usd"),
            "session_id": slot.session,
        }


def _result_event(path: Path) -> dict[str, Any] | None:
    last = None
    try:
        with open(path, "rb") as fh:
            for raw in fh:
                if b'"type":"result"' not in raw and b'"type": "result"' not in raw:
                    continue
                try:
                    rec = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(rec, dict) and rec.get("type") == "result":
                    last = rec
    except OSError:
        return None
    return last


def _stderr_tail(slot: Slot) -> str:
    try:
        text = slot.stderr.read_text(errors="replace").strip()
    except OSError:
        return "no stderr"
    return text.splitlines()[-1][:200] if text else "no stderr"
