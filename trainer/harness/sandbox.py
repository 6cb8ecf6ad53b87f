"""The OS-level confinement of everything a harness rollout runs: bubblewrap.

A replayed agent runs unattended, on a task mined from the logs, in a copy of a repository
the user once worked in (third-party clones included), with a model that a file in that
repository may steer. Whatever it is told, it must not read or write outside its copy and
scratch home, reach any host but the model endpoint, see a credential, or leave a process
behind. Environment variables cannot promise that; namespaces can. Each CLI run, setup
command, check command and post-rollout git call runs in `bwrap` (the mechanism Claude
Code's and Codex's own Linux sandboxes are built on) with:

* a new mount namespace holding only read-only system paths (`/usr` and its links, `/etc`
  with its secret files masked), the CLI's installation and interpreter, the copy and the
  scratch home (read-write), a private `/tmp`, `/proc` and `/dev` of its own — nothing of
  the user's home;
* a new network namespace: only its own loopback; the model endpoint is reachable through
  `bridge.py` and the relay's Unix socket (`Network.MODEL`), setup commands alone keep the
  host's network (`Network.HOST`: they install dependencies), checks have none;
* new PID, IPC and UTS namespaces, `--die-with-parent` and a new session: when the command
  ends (or the night is killed) every process it started ends with it;
* no capabilities, no new privileges (bwrap sets `PR_SET_NO_NEW_PRIVS`), an environment
  built from scratch.

Where bwrap is missing or the kernel refuses it namespaces, `unavailable()` says why in one
line; the harness then refuses to run unless the user opted out (`harness.sandbox: false`).
"""

from __future__ import annotations

import enum
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from trainer.backends.base import InfraError

# Linked or bound read-only from the host: the system, never anyone's home.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# Under /etc, what a process has no business reading (host keys, password hashes, …).
ETC_SECRETS = (
    "shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d", "ssh",
    "ssl/private", "security/opasswd", "krb5.keytab", "NetworkManager/system-connections",
    "wpa_supplicant", "docker", "containers/auth.json", "skillopt-sleep",
)  # fmt: skip
INSIDE_RUN = "/run/skillopt"  # where the relay's socket and the bridge appear inside
BRIDGE_PORT = 18080  # the model endpoint's port on the sandbox's own loopback


class Network(enum.Enum):
    NONE = "none"  # checks, git: no network at all
    MODEL = "model"  # the agent CLI: only the model endpoint, through the relay
    HOST = "host"  # setup commands: the host's network (they install dependencies)


class SandboxUnavailable(InfraError):
    """This machine cannot confine a rollout (the reason is the message); like a missing
    CLI, nothing can be attempted until the user installs something or opts out."""


@dataclass(frozen=True)
class Confinement:
    """What one sandboxed command may see: paths bound read-only and read-write (at the
    same place inside), its working directory, its whole environment, its network."""

    cwd: Path
    env: Mapping[str, str]
    writable: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()
    network: Network = Network.NONE
    run_dir: Path | None = None  # the relay's directory (socket, bridge.py) for MODEL


@dataclass(frozen=True)
class Jail:
    """Where one slot's commands run. Confined: in bwrap, with these paths (the copy, home
    and TMPDIR writable; the CLI's installation, interpreters and repository mirror
    read-only) and the relay's run directory; not confined (the user opted out): as they are.
    """

    confined: bool
    writable: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()
    run_dir: Path | None = None

    def command(
        self, command: Sequence[str], *, cwd: Path, env: Mapping[str, str], network: Network
    ) -> tuple[list[str], dict[str, str]]:
        """(argv, environment) to start `command` with."""
        if not self.confined:
            return list(command), dict(env)
        c = Confinement(cwd, env, self.writable, self.read_only, network, self.run_dir)
        return argv(c, command), {"PATH": "/usr/bin:/bin"}  # bwrap's; the command's is inside


def _bind_system(args: list[str]) -> None:
    for p in SYSTEM_PATHS:
        if os.path.islink(p):
            args += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            args += ["--ro-bind", p, p]
    for rel in ETC_SECRETS:
        p = Path("/etc") / rel
        if p.is_symlink() or not p.exists():
            continue
        args += ["--tmpfs", str(p)] if p.is_dir() else ["--ro-bind", "/dev/null", str(p)]


def _outside_system(path: Path) -> bool:
    return not any(
        path == Path(p) or Path(p) in path.parents for p in SYSTEM_PATHS if not os.path.islink(p)
    )


def argv(c: Confinement, command: Sequence[str]) -> list[str]:
    """The bwrap command line that runs `command` under `c`."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if c.network is Network.HOST:
        args.append("--share-net")
    _bind_system(args)
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp"]
    args += ["--tmpfs", "/run"]
    for p in dict.fromkeys(c.read_only):
        if _outside_system(p):
            args += ["--ro-bind", str(p), str(p)]
    for p in dict.fromkeys(c.writable):
        args += ["--bind", str(p), str(p)]
    args += ["--chdir", str(c.cwd), "--clearenv"]
    for k, v in c.env.items():
        args += ["--setenv", k, v]
    if c.network is Network.MODEL:
        if c.run_dir is None:
            raise ValueError("a MODEL network needs the relay's run_dir")
        args += ["--ro-bind", str(c.run_dir), INSIDE_RUN]
        bridge = [python(), "-I", "-S", f"{INSIDE_RUN}/bridge.py", str(BRIDGE_PORT)]
        command = [*bridge, f"{INSIDE_RUN}/model.sock", "--", *command]
    return [*args, "--", *command]


def python() -> str:
    """The interpreter that runs the bridge inside (its installation is bound read-only)."""
    return os.path.realpath(sys.executable)


def interpreter_paths() -> tuple[Path, ...]:
    """Read-only paths the bridge's Python needs: its installation's prefix."""
    return (Path(os.path.realpath(sys.base_prefix)),)


def install_paths(cli_path: str, path_env: str) -> tuple[Path, ...]:
    """Read-only paths an agent CLI needs: its package (the nearest `node_modules`, else its
    folder) and, for a script, the installation of its interpreter (`#!/usr/bin/env node`)."""
    real = Path(os.path.realpath(cli_path))
    found = next((p for p in real.parents if p.name == "node_modules"), real.parent)
    out = [found]
    interp = _shebang(real)
    if interp:
        exe = shutil.which(interp, path=path_env) if "/" not in interp else interp
        if exe:
            out.append(Path(os.path.realpath(exe)).parent.parent)  # <prefix>/bin/node
    return tuple(out)


def _shebang(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    return words[1] if Path(words[0]).name == "env" and len(words) > 1 else words[0]


@cache
def unavailable() -> str | None:
    """None when bwrap can confine a command on this machine, else the reason in one line
    (probed once per process: a trivial command in every namespace the harness uses)."""
    if not shutil.which("bwrap"):
        return "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt install bubblewrap)"
    probe = Confinement(cwd=Path("/"), env={"PATH": "/usr/bin:/bin"})
    try:
        done = subprocess.run(
            argv(probe, ["true"]), capture_output=True, text=True, timeout=30,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot run here: {exc}"
    if done.returncode != 0:
        lines = (done.stderr or "").strip().splitlines()
        why = lines[-1] if lines else f"exit {done.returncode}"
        return f"bwrap cannot create namespaces here ({why}); see docs/harness.md, 'Sandbox'"
    return None


def require() -> None:
    """Raise SandboxUnavailable with the reason when confinement is not possible."""
    why = unavailable()
    if why:
        raise SandboxUnavailable(why)
