"""The target inside Codex: `codex exec -` with "$<skill> <request>" on stdin, in the copy.

Facts this relies on (Codex 0.171.0, checked against the embedded llama.cpp server, which
speaks `/v1/responses`):

* The skill goes to `<copy>/.agents/skills/<name>/SKILL.md`; `$<name>` in the prompt makes
  Codex inject a user message `<skill>\\n<name>…</name>\\n<path>…</path>\\n<file text></skill>`
  into the transcript (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`).
* A custom endpoint needs a `model_providers` entry with `wire_api = "responses"` (0.171
  refuses `"chat"`). Codex has no per-request output cap in 0.171 (`model_max_output_tokens`
  is reported as an unknown key and ignored) and no turn limit: the wall clock bounds a
  rollout, and the embedded server caps tokens per request on its side.
* `approval_policy = "never"` never prompts. Inside our sandbox Codex runs its commands
  with `danger-full-access`: its own bubblewrap cannot nest in ours when the night runs as
  root ("setting up uid map"), and ours already confines the whole CLI. Unconfined (the
  user opted out of ours), the `workspace-write` sandbox keeps commands' writes in the
  copy and TMPDIR and off the network — but lets them read the whole disk.
* Features switched off here cut the tool list to `exec_command`, `write_stdin` and
  `request_user_input` (multi-agent tools alone are ~11k characters of schema).
* On a refused connection Codex retries forever ("Reconnecting... waiting for network"):
  that line ends the rollout at once as an infrastructure error.
* CODEX_HOME must not sit under TMPDIR (Codex then refuses to create its helper
  binaries); TMPDIR is the slot's own `tmp/`, the home is `home/.codex`.
* The prompt starts with ~17k characters of base instructions, then the skill list, which
  names the home and the copy: fixed slot paths keep that prefix identical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trainer.backends.base import InfraError
from trainer.harness.base import HarnessRollout
from trainer.harness.cli import CODEX, CliInfo
from trainer.harness.sandbox import SandboxUnavailable
from trainer.harness.settings import HarnessSettings
from trainer.harness.slots import Slot
from trainer.harness.transcript import Transcript, own_file, parse_codex
from trainer.skill import SkillDoc

PROVIDER = "skillopt"
CAPPED = "reason: max_output_tokens"  # turn.failed for a response cut at the output cap
KEY_VAR = "SKILLOPT_HARNESS_API_KEY"
FEATURES_OFF = ("multi_agent", "goals", "apps", "plugins", "image_generation", "view_image",
                "shell_snapshot", "hooks")  # fmt: skip


def _toml(value: Any) -> str:
    return json.dumps(value)  # TOML basic strings, ints and booleans read like JSON


class CodexRollout(HarnessRollout):
    kind = CODEX
    default_hosts = ("api.openai.com", "chatgpt.com", "auth.openai.com")
    provider_url = "https://api.openai.com/v1"

    def skill_path(self, name: str) -> str:
        return f".agents/skills/{name}/SKILL.md"

    def flags(self) -> list[str]:
        return ["exec", "--json", "--skip-git-repo-check"]

    def __init__(self, settings: HarnessSettings, cli: CliInfo | None = None) -> None:
        if settings.sandbox and settings.login_file and not settings.base_url:
            raise SandboxUnavailable(
                "a Codex ChatGPT login cannot run in the sandbox (it talks to several OpenAI "
                "hosts, and its tokens would be readable by the agent); give Codex an API key "
                "(harness.codex.api_key_env) or a base_url, or opt out: harness.sandbox: false"
            )
        super().__init__(settings, cli)

    def argv(self, slot: Slot) -> list[str]:
        return [self.cli.path, *self.flags(), "-"]

    def invocation(self, name: str, prompt: str) -> str:
        return f"${name} {prompt}"

    def cli_env(self, slot: Slot) -> dict[str, str]:
        env = {"CODEX_HOME": str(slot.home / ".codex")}
        key = self.cli_api_key()
        if key:
            env[KEY_VAR] = key
        return env

    def config_toml(self) -> str:
        s = self.settings
        lines = []
        if s.model:
            lines.append(f"model = {_toml(s.model)}")
        mode = "danger-full-access" if self.confined else "workspace-write"
        lines += ['approval_policy = "never"', f"sandbox_mode = {_toml(mode)}"]
        lines += ["check_for_update_on_startup = false", 'web_search = "disabled"']
        if s.context_window:
            lines.append(f"model_context_window = {int(s.context_window)}")
        base_url = self.cli_base_url()
        if base_url:
            lines.append(f"model_provider = {_toml(PROVIDER)}")
            lines += ["", f"[model_providers.{PROVIDER}]", f"name = {_toml(PROVIDER)}"]
            lines += [f"base_url = {_toml(base_url)}", f"env_key = {_toml(KEY_VAR)}"]
            lines += ['wire_api = "responses"']
            # a slow local prefill must not look like a dead stream; retries are the
            # night's business (an InfraError is retried by a resumed night)
            lines += [f"stream_idle_timeout_ms = {int(s.timeout_s * 1000)}"]
            lines += ["request_max_retries = 1", "stream_max_retries = 1"]
        lines += ["", "[features]", *(f"{f} = false" for f in FEATURES_OFF)]
        lines += ["", "[analytics]", "enabled = false", "", "[history]", 'persistence = "none"']
        return "\n".join(lines) + "\n"

    def build_template(self, home: Path) -> None:
        codex = home / ".codex"
        codex.mkdir(mode=0o700)
        (codex / "config.toml").write_text(self.config_toml())

    def login_path(self, home: Path) -> Path:
        return home / ".codex" / "auth.json"

    def _template_inputs(self) -> Any:
        return [super()._template_inputs(), self.config_toml()]

    def fatal_line(self, line: str) -> str | None:
        if '"type":"error"' not in line and '"type": "error"' not in line:
            return None
        if "waiting for network" in line or "Connection failed" in line:
            return "the model endpoint is unreachable"
        return None

    def read_transcript(self, slot: Slot, skill: SkillDoc, name: str) -> Transcript:
        found = sorted((slot.home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl"))
        if not found:
            raise InfraError(
                f"codex wrote no transcript ({_last_error(slot.stdout) or 'no error'})"
            )
        return parse_codex(own_file(slot.home, found[-1]), name, skill.body)

    def finish(self, slot: Slot, tr: Transcript) -> dict[str, Any]:
        failed = _last_error(slot.stdout, kinds=("turn.failed",))
        if CAPPED in failed:  # the model wrote past model_max_output_tokens
            tr.output_capped = True
        elif failed and not tr.api_error:
            tr.api_error = failed
        return {}


def _last_error(path: Path, kinds: tuple[str, ...] = ("error", "turn.failed")) -> str:
    """The last error event of `codex exec --json` output ("" if none)."""
    found = ""
    try:
        with open(path, "rb") as fh:
            for raw in fh:
                try:
                    rec = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(rec, dict) and rec.get("type") in kinds:
                    err = rec.get("error") if isinstance(rec.get("error"), dict) else rec
                    found = str(err.get("message", rec.get("type")))[:300]
    except OSError:
        return ""
    return found
