"""The shared half of a harness rollout: one attempt of a task inside a real agent CLI.

Per rollout, in a slot (`slots.py`): copy the repository at the task's commit (through a
mirror, `workspace.py`), give the CLI a fresh home from the template, run the task's setup,
install the candidate skill in the copy's project skill directory, run the CLI with a
wall-clock limit and the request on stdin (not in its argv, which every local user can read
in `ps`), then read its own transcript (was the skill's body injected? which tools ran, how
did they exit?), the files changed against the copy as the agent found it, and the task's
check commands. The slot is cleared afterwards.

Everything after the copy runs confined (`sandbox.py`): the CLI, setup, checks, git. The
CLI reaches its model only through the relay (`relay.py`), which holds the credentials
(`credentials.py`): inside, the CLI has placeholders. When the user opted out of the
sandbox (`HarnessSettings.sandbox=False`), commands run as they are, the CLI has the real
credentials and proxies that refuse everything but the endpoint, and what it left running
is found by an environment variable (`procs.reap`) — a weaker promise, which the night's
report states.

What cannot be trusted is an infrastructure error (`InfraError`), never a task failure:
the copy or setup failed, the endpoint failed or never answered, the transcript is
missing, or it does not show the candidate's body reaching the model.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from trainer.backends.base import InfraError
from trainer.harness import sandbox
from trainer.harness.cli import CliInfo, find_cli
from trainer.harness.credentials import Credentials
from trainer.harness.procs import RUN_VAR, kill_group, reap
from trainer.harness.relay import ModelRelay
from trainer.harness.sandbox import Jail, Network
from trainer.harness.settings import HarnessSettings, short_hash
from trainer.harness.slots import Slot, SlotPool, template_home
from trainer.harness.transcript import Transcript
from trainer.harness.workspace import workspace_problem
from trainer.rollout import Outcome
from trainer.skill import SkillDoc
from trainer.tasks import Task, TaskWorkspace

BLACKHOLE_PROXY = "http://127.0.0.1:9"  # unconfined only: the discard port refuses
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
    provider_url = ""  # the CLI's own API, where a key or a login goes without a base_url

    def __init__(self, settings: HarnessSettings, cli: CliInfo | None = None) -> None:
        self.settings = settings
        self.cli = cli or find_cli(self.kind, settings.cli_path)
        if settings.sandbox:
            sandbox.require()
        self.credentials = Credentials(settings.api_key, settings.login_file)
        self.concurrency = settings.concurrency
        self.identity = (
            f"{self.kind}:{self.cli.version}:{settings.model or 'default'}@{settings.endpoint}:"
            f"{short_hash([settings.outcome_settings(), self.flags()])}"
        )
        self.pool = SlotPool(settings.work_dir, self.kind, settings.concurrency)
        self._lock = threading.Lock()
        self._relay: ModelRelay | None = None
        self._forget_old_logins()

    # -- what subclasses provide -----------------------------------------------------------
    def skill_path(self, name: str) -> str:
        """Where the skill goes in the scratch home (relative path of its SKILL.md)."""
        raise NotImplementedError

    def flags(self) -> list[str]:
        """The CLI's fixed flags (no prompt, no session id): part of the identity."""
        raise NotImplementedError

    def argv(self, slot: Slot) -> list[str]:
        """The command line; the request comes on stdin."""
        raise NotImplementedError

    def invocation(self, name: str, prompt: str) -> str:
        """The request as the CLI is given it, invoking the skill `name`."""
        raise NotImplementedError

    def cli_env(self, slot: Slot) -> dict[str, str]:
        """Variables for the CLI process on top of `base_env`."""
        raise NotImplementedError

    def build_template(self, home: Path) -> None:
        raise NotImplementedError

    def login_path(self, home: Path) -> Path:
        """Where the CLI looks for its login file under `home`."""
        raise NotImplementedError

    def read_transcript(self, slot: Slot, skill: SkillDoc, name: str) -> Transcript:
        raise NotImplementedError

    def finish(self, slot: Slot, tr: Transcript) -> dict[str, Any]:
        """Settle the answer from the CLI's stdout where it is better there; extra detail."""
        return {}

    fatal_line: FatalLine | None = None

    # -- the endpoint as the CLI sees it ---------------------------------------------------
    @property
    def confined(self) -> bool:
        return self.settings.sandbox

    def upstream(self) -> str:
        return self.settings.base_url or self.provider_url

    def cli_base_url(self) -> str | None:
        """The URL the CLI is given: the relay's end on the sandbox's loopback (with the
        endpoint's path), or, unconfined, the endpoint itself (None: the CLI's default)."""
        if not self.confined:
            return self.settings.base_url
        path = urlsplit(self.upstream()).path.rstrip("/")
        return f"http://127.0.0.1:{sandbox.BRIDGE_PORT}{path}"

    def cli_api_key(self) -> str | None:
        return self.credentials.inside_key if self.confined else self.settings.api_key

    def relay(self) -> ModelRelay:
        with self._lock:
            if self._relay is None:
                self._relay = ModelRelay(
                    self.upstream(), self.credentials.real, self.settings.timeout_s
                )
            return self._relay

    def close(self) -> None:
        """Stop the relay (the night ends); a later rollout starts a new one."""
        with self._lock:
            relay, self._relay = self._relay, None
        if relay is not None:
            relay.close()

    def jail(self, slot: Slot) -> Jail:
        """Where this slot's commands run: the copy, home and TMPDIR writable; the CLI, the
        bridge's interpreter and the copy's mirror read-only; the relay for the model."""
        if not self.confined:
            return Jail(confined=False)
        path_env = self.base_env(slot)["PATH"]
        read_only = (*sandbox.install_paths(self.cli.path, path_env), *sandbox.interpreter_paths())
        read_only += tuple(Path(p).expanduser() for p in self.settings.read_only)
        if slot.repo.mirror is not None:
            read_only += (slot.repo.mirror,)
        return Jail(
            confined=True,
            writable=(slot.repo.path, slot.home, slot.tmp),
            read_only=read_only,
            run_dir=self.relay().run_dir,
        )

    # -- the adapter -----------------------------------------------------------------------
    def fingerprint(self, skill: SkillDoc, task: Task, max_tokens: int | None) -> Any:
        # the harness's own output cap applies (settings, in `identity`), not max_tokens
        return {
            "prompt": task.prompt,
            "workspace": task.workspace.to_dict() if task.workspace else None,
            "checks": check_commands(task),
            "skill_dir": skill_dir_name(skill),
        }

    def rollout(self, skill: SkillDoc, task: Task, *, max_tokens: int | None) -> Outcome:
        ws = task.workspace
        problem = workspace_problem(ws)
        if ws is None or problem:
            raise InfraError(f"task {task.id} cannot run in {self.kind}: {problem}")
        with self.pool.slot() as slot:
            slot.new_token()
            try:
                return self._attempt(slot, skill, task, ws)
            finally:
                reap(slot.token)  # unconfined: nothing may still write into the slot
                slot.clear()

    def template(self) -> Path:
        name = f"{self.kind}-{self.cli.version}-{short_hash([self._template_inputs()])}"
        with self._lock:
            return template_home(self.settings.work_dir, name, self.build_template)

    def _template_inputs(self) -> Any:
        s = self.settings
        return [s.outcome_settings(), s.base_url is None, self.cli_base_url()]

    def _forget_old_logins(self) -> None:
        """Template homes of earlier versions held a copy of the user's login: delete it."""
        for template in (Path(self.settings.work_dir) / "templates").glob(f"{self.kind}-*"):
            login = self.login_path(template)
            if login.is_file() and not login.is_symlink():
                login.unlink()

    def fresh_home(self, slot: Slot) -> None:
        """The slot's home from the template, with the login (placeholders when confined;
        the real file only unconfined, and only in this rollout's home, never a template)."""
        slot.fresh_home(self.template())
        if not self.settings.login_file:
            return
        dest = self.login_path(slot.home)
        dest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if self.confined:
            dest.write_text(self.credentials.inside_login() or "", encoding="utf-8")
        else:
            shutil.copyfile(self.settings.login_file, dest)
        dest.chmod(0o600)

    def base_env(self, slot: Slot) -> dict[str, str]:
        """The minimal environment: chosen variables of ours, a private HOME and TMPDIR.
        Unconfined, also the run marker `procs.reap` finds, and proxies that refuse
        everything except the model endpoint."""
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
        if self.confined:
            return env
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

    def _attempt(self, slot: Slot, skill: SkillDoc, task: Task, ws: TaskWorkspace) -> Outcome:
        s = self.settings
        t0 = time.monotonic()
        env = self.base_env(slot)
        self.fresh_home(slot)
        slot.repo.create(ws.repo, ws.commit)
        jail = self.jail(slot)
        # setup is the user's own preparation (installing dependencies): it keeps the network
        setup_env = {k: v for k, v in env.items() if k.upper() not in PROXY_VARS}
        slot.repo.run_setup(list(ws.setup), setup_env, s.setup_timeout_s, jail)
        name = skill_dir_name(skill)
        install_skill(slot.home / self.skill_path(name), skill.render())
        slot.repo.mark_baseline(jail)
        t_cli = time.monotonic()
        stdin = self.invocation(name, task.prompt)
        rc, timed_out, fatal = self.run_cli(slot, jail, self.argv(slot), env, stdin)
        cli_s = time.monotonic() - t_cli
        reap(slot.token)  # unconfined: what the agent left running would change files
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
        files = slot.repo.changed_files(jail)
        checks = slot.repo.run_checks(check_commands(task), env, s.check_timeout_s, jail)
        total = time.monotonic() - t0
        detail.update(
            cli_version=self.cli.version,
            commit=ws.commit,
            timed_out=timed_out,
            confined=self.confined,
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
        self, slot: Slot, jail: Jail, argv: list[str], env: dict[str, str], stdin: str
    ) -> tuple[int, bool, str | None]:
        """(exit status, timed out, fatal reason). The request goes in on stdin, output to
        the slot's files; a fatal stdout line or the wall-clock limit kills the CLI and, in
        the sandbox, everything it started."""
        command, popen_env = jail.command(
            argv, cwd=slot.repo.path, env={**env, **self.cli_env(slot)}, network=Network.MODEL
        )
        fatal: list[str] = []
        with open(slot.stderr, "wb") as err:
            try:
                proc = subprocess.Popen(
                    command,
                    cwd=slot.repo.path,
                    env=popen_env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=err,
                    start_new_session=True,
                )
            except OSError as exc:
                raise InfraError(f"cannot start {argv[0]}: {exc}") from exc
            assert proc.stdin is not None
            feeder = threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True)
            feeder.start()
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


def install_skill(path: Path, text: str) -> None:
    """The candidate as a user skill of the scratch home (fresh from the template, nothing
    has run in it): never in the copy, whose `.claude` may be a symlink out of it and whose
    project settings are not read."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(text, encoding="utf-8")


def _feed(pipe: IO[bytes], text: str) -> None:
    """Write the request to the CLI's stdin and close it (a CLI that exits early is fine)."""
    with contextlib.suppress(OSError):
        pipe.write(text.encode("utf-8"))
    with contextlib.suppress(OSError):
        pipe.close()
