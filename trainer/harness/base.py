"""The shared half of a harness rollout: one attempt of a task inside a real agent CLI.

Per rollout, in a slot (`slots.py`): copy the repository at the task's commit, run its
setup, install the candidate skill in the copy's project skill directory, give the CLI a
fresh home from the template, run it with a wall-clock limit and no stdin, then read its
own transcript (was the skill's body injected? which tools ran, how did they exit?), the
files changed against the copy as the agent found it, and the task's check commands. The
slot is cleared afterwards.

What cannot be trusted is an infrastructure error (`InfraError`), never a task failure:
the copy or setup failed, the endpoint failed or never answered, the transcript is
missing, or it does not show the candidate's body reaching the model.
"""

from __future__ import annotations

import getpass
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from trainer.backends.base import InfraError
from trainer.harness.cli import CliInfo, find_cli
from trainer.harness.procs import RUN_VAR, kill_group, reap
from trainer.harness.settings import HarnessSettings, short_hash
from trainer.harness.slots import Slot, SlotPool, template_home
from trainer.harness.transcript import Transcript
from trainer.rollout import Outcome
from trainer.skill import SkillDoc
from trainer.tasks import Task

BLACKHOLE_PROXY = "http://127.0.0.1:9"  # the discard port: connections are refused
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")

# A line of the CLI's stdout that means the run cannot succeed: the reason, or None.
FatalLine = Callable[[str], str | None]


def skill_dir_name(skill: SkillDoc) -> str:
    """The directory (and invocation) name: the skill's own name when the CLIs accept it."""
    return skill.name if _NAME.match(skill.name) else "skill"


def check_commands(task: Task) -> list[str]:
    return list(dict.fromkeys(j.value for j in task.judges if j.kind == "check"))


class HarnessRollout:
    """Base of `ClaudeCodeRollout` and `CodexRollout` (a `trainer.rollout.RolloutAdapter`)."""

    kind = ""
    default_hosts: tuple[str, ...] = ()  # where the CLI's own provider lives (login use)

    def __init__(self, settings: HarnessSettings, cli: CliInfo | None = None) -> None:
        self.settings = settings
        self.cli = cli or find_cli(self.kind, settings.cli_path)
        self.concurrency = settings.concurrency
        self.identity = (
            f"{self.kind}:{self.cli.version}:{settings.model or 'default'}@{settings.endpoint}:"
            f"{short_hash([settings.outcome_settings(), self.flags()])}"
        )
        self.pool = SlotPool(settings.work_dir, self.kind, settings.concurrency)
        self._template_lock = threading.Lock()

    # -- what subclasses provide -----------------------------------------------------------
    def skill_path(self, name: str) -> str:
        """Where the skill goes in the copy (relative path of its SKILL.md)."""
        raise NotImplementedError

    def flags(self) -> list[str]:
        """The CLI's fixed flags (no prompt, no session id): part of the identity."""
        raise NotImplementedError

    def argv(self, slot: Slot, name: str, prompt: str) -> list[str]:
        raise NotImplementedError

    def cli_env(self, slot: Slot) -> dict[str, str]:
        """Variables for the CLI process on top of `base_env`."""
        raise NotImplementedError

    def build_template(self, home: Path) -> None:
        raise NotImplementedError

    def read_transcript(self, slot: Slot, skill: SkillDoc, name: str) -> Transcript:
        raise NotImplementedError

    def finish(self, slot: Slot, tr: Transcript) -> dict[str, Any]:
        """Settle the answer from the CLI's stdout where it is better there; extra detail."""
        return {}

    fatal_line: FatalLine | None = None

    # -- the adapter -----------------------------------------------------------------------
    def fingerprint(self, skill: SkillDoc, task: Task, max_tokens: int | None) -> Any:
        # the harness's own output cap applies (settings, in `identity`), not max_tokens
        return {
            "prompt": task.prompt,
            "workspace": task.workspace,
            "checks": check_commands(task),
            "skill_dir": skill_dir_name(skill),
        }

    def rollout(self, skill: SkillDoc, task: Task, *, max_tokens: int | None) -> Outcome:
        ws = task.workspace
        if not ws or not ws.get("repo") or not ws.get("commit"):
            raise InfraError(f"task {task.id} has no workspace (repo and commit)")
        with self.pool.slot() as slot:
            slot.new_token()
            try:
                return self._attempt(slot, skill, task, ws)
            finally:
                reap(slot.token)  # before clearing: nothing may still write into the slot
                slot.clear()

    def template(self) -> Path:
        name = f"{self.kind}-{self.cli.version}-{short_hash([self._template_inputs()])}"
        with self._template_lock:
            return template_home(self.settings.work_dir, name, self.build_template)

    def _template_inputs(self) -> Any:
        s = self.settings
        return [s.outcome_settings(), s.login_file, s.base_url is None]

    def base_env(self, slot: Slot) -> dict[str, str]:
        """The minimal environment: chosen variables of ours, a private HOME and TMPDIR,
        and proxies that refuse everything except the model endpoint."""
        env = {k: os.environ[k] for k in self.settings.env_passthrough if k in os.environ}
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        user = getpass.getuser()
        env.update(
            HOME=str(slot.home),
            TMPDIR=str(slot.tmp),
            USER=user,
            LOGNAME=user,
            SHELL="/bin/bash",
            LANG="C.UTF-8",
            LC_ALL="C.UTF-8",
            TERM="dumb",
            NO_COLOR="1",
        )
        env[RUN_VAR] = slot.token
        hosts = self._allowed_hosts()
        for var in PROXY_VARS[:3]:
            env[var] = env[var.lower()] = BLACKHOLE_PROXY
        env["NO_PROXY"] = env["no_proxy"] = ",".join(hosts)
        return env

    def _allowed_hosts(self) -> tuple[str, ...]:
        if self.settings.base_url:
            host = urlsplit(self.settings.base_url).hostname or ""
            return (host,) if host else ()
        return self.default_hosts

    def _attempt(self, slot: Slot, skill: SkillDoc, task: Task, ws: dict[str, Any]) -> Outcome:
        s = self.settings
        t0 = time.monotonic()
        env = self.base_env(slot)
        slot.fresh_home(self.template())
        slot.repo.create(ws["repo"], ws["commit"])
        # setup is the user's own preparation (installing dependencies): it keeps the network
        setup_env = {k: v for k, v in env.items() if k.upper() not in PROXY_VARS}
        slot.repo.run_setup(list(ws.get("setup") or []), setup_env, s.setup_timeout_s)
        name = skill_dir_name(skill)
        slot.repo.install(self.skill_path(name), skill.render())
        slot.repo.mark_baseline()
        t_cli = time.monotonic()
        rc, timed_out, fatal = self.run_cli(slot, self.argv(slot, name, task.prompt), env)
        cli_s = time.monotonic() - t_cli
        reap(slot.token)  # what the agent left running would change files under our feet
        if fatal:
            raise InfraError(f"{self.kind}: {fatal}")
        tr = self.read_transcript(slot, skill, name)
        detail = self.finish(slot, tr)
        if tr.api_error:
            raise InfraError(f"{self.kind}: the model endpoint failed: {tr.api_error}")
        if timed_out and not tr.model_answered:
            raise InfraError(f"{self.kind}: no model response within {s.timeout_s:.0f}s")
        if not tr.skill_injected:
            raise InfraError(
                f"{self.kind}: the transcript does not show the skill's body injected "
                f"(invoked as {name!r})"
            )
        t_after = time.monotonic()
        files = slot.repo.changed_files()
        checks = slot.repo.run_checks(check_commands(task), env, s.check_timeout_s)
        total = time.monotonic() - t0
        detail.update(
            cli_version=self.cli.version,
            commit=ws["commit"],
            timed_out=timed_out,
            model_requests=tr.model_requests,
            output_capped=tr.output_capped,
            cached_input_tokens=tr.cached_input_tokens,
            transcript_records=tr.records,
            seconds_prepare=round(t_cli - t0, 3),
            seconds_cli=round(cli_s, 3),
            seconds_after=round(time.monotonic() - t_after, 3),
        )
        return Outcome(
            answer=tr.answer,
            input_tokens=tr.input_tokens,
            output_tokens=tr.output_tokens,
            cost_usd=s.cost(tr.input_tokens, tr.output_tokens),
            where=self.kind,
            tool_calls=tuple(tr.tool_calls),
            files_changed=files,
            exit_status=rc,
            checks=checks,
            skill_injected=True,
            seconds=round(total, 3),
            detail=detail,
        )

    def run_cli(
        self, slot: Slot, argv: list[str], env: dict[str, str]
    ) -> tuple[int, bool, str | None]:
        """(exit status, timed out, fatal reason). Output goes to the slot's files; a
        fatal stdout line or the wall-clock limit kills the CLI's whole process group."""
        env = {**env, **self.cli_env(slot)}
        fatal: list[str] = []
        with open(slot.stderr, "wb") as err:
            try:
                proc = subprocess.Popen(
                    argv,
                    cwd=slot.repo.path,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=err,
                    start_new_session=True,
                )
            except OSError as exc:
                raise InfraError(f"cannot start {argv[0]}: {exc}") from exc
            reader = threading.Thread(
                target=self._pump, args=(proc, slot.stdout, fatal), daemon=True
            )
            reader.start()
            timed_out = False
            try:
                proc.wait(self.settings.timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                kill_group(proc)
            except BaseException:
                kill_group(proc)
                raise
            reader.join(10)
        return proc.returncode, timed_out and not fatal, fatal[0] if fatal else None

    def _pump(self, proc: subprocess.Popen, path: Path, fatal: list[str]) -> None:
        assert proc.stdout is not None
        with open(path, "wb") as out:
            for line in proc.stdout:
                out.write(line)
                if self.fatal_line and not fatal:
                    reason = self.fatal_line(line.decode("utf-8", "replace"))
                    if reason:
                        fatal.append(reason)
                        kill_group(proc)
