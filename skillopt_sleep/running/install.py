"""Install the daemon for the current user: systemd user units, or a crontab block.

The unit texts live here as templates; ``systemd/`` in the repository holds the same
units rendered with the defaults (``%h/.local/bin/skillopt-sleep``), and a test keeps the
two identical. ``install systemd`` renders them with the absolute path of the running
``skillopt-sleep`` and the configured state and skill directories, because under
``ProtectSystem=strict`` only the listed paths are writable.

Hardening that fits a *user* unit: the seccomp-based options (NoNewPrivileges,
RestrictSUIDSGID, LockPersonality, SystemCallFilter, …) work unprivileged; the
mount-namespace ones (PrivateTmp, ProtectSystem, ProtectKernelTunables …) need a user
namespace, hence ``PrivateUsers=yes`` (implied from systemd 253 on, silently ignored
before it without that line).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillopt_sleep.promotion.dirs import targets
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.settings import envfile, paths

UNITS = ("skillopt-sleep.service", "skillopt-sleep-night.service", "skillopt-sleep-night.timer")
DEFAULT_EXE = "%h/.local/bin/skillopt-sleep"
DEFAULT_RW = ("%h/.local/state/skillopt-sleep", "%h/.claude/skills", "%h/.agents/skills")
DEFAULT_CALENDAR = "*-*-* 02:00"
DEFAULT_ENV_FILE = "%h/.config/skillopt-sleep/env"
CRON_BEGIN = "# BEGIN skillopt-sleep (managed by `skillopt-sleep install cron`; do not edit)"
CRON_END = "# END skillopt-sleep"


class InstallError(Exception):
    """Installing or uninstalling failed; one line saying why."""


_HARDENING = """\
# Hardening that works in a user unit. If your system forbids unprivileged user
# namespaces and the unit fails to start, relax it with `systemctl --user edit {unit}`:
#   [Service]
#   PrivateUsers=no
#   PrivateTmp=no
#   ProtectSystem=no
NoNewPrivileges=yes
PrivateUsers=yes
PrivateTmp=yes
ProtectSystem=strict
ReadWritePaths={rw}
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictSUIDSGID=yes
RestrictRealtime=yes
RestrictNamespaces=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
LockPersonality=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallErrorNumber=EPERM
UMask=0077
"""

_DAEMON = """\
# skillopt-sleep daemon: nights on schedule, live ingest by day (user unit).
# Enable: systemctl --user daemon-reload && systemctl --user enable --now skillopt-sleep.service
[Unit]
Description=skillopt-sleep: improve coding-agent skills overnight

[Service]
Type=simple
ExecStart={exe} daemon
ExecReload=/bin/kill -HUP $MAINPID
Restart=on-failure
RestartSec=60
# 2 = a configuration mistake, 3 = another instance holds the state directory:
# restarting cannot fix either.
RestartPreventExitStatus=2 3
# SIGTERM lets a running night reach its checkpoint first.
TimeoutStopSec=120
Environment=PYTHONUNBUFFERED=1
# Your endpoint variables (OPENAI_API_KEY, TARGET_MODEL, ...): `install` offers to write it.
EnvironmentFile=-{env_file}
{hardening}
[Install]
WantedBy=default.target
"""

_NIGHT = """\
# skillopt-sleep: one night, started by skillopt-sleep-night.timer (user unit).
# Use either this timer or skillopt-sleep.service, not both.
[Unit]
Description=skillopt-sleep: one night of skill training

[Service]
Type=oneshot
ExecStart={exe} run --once
# 3 = the daemon (or another night) is running: not a failure.
SuccessExitStatus=3
Environment=PYTHONUNBUFFERED=1
# Your endpoint variables (OPENAI_API_KEY, TARGET_MODEL, ...): `install` offers to write it.
EnvironmentFile=-{env_file}
{hardening}"""

_TIMER = """\
# skillopt-sleep nightly timer; Persistent= runs a night missed while the machine was off.
# Enable: systemctl --user daemon-reload && systemctl --user enable --now skillopt-sleep-night.timer
[Unit]
Description=skillopt-sleep: nightly skill training

[Timer]
OnCalendar={calendar}
Persistent=true
RandomizedDelaySec=5min

[Install]
WantedBy=timers.target
"""


def _unit_word(value: str) -> str:
    """Quote a path for a unit file: ``%`` is a specifier there, spaces split words."""
    value = value.replace("%", "%%") if not value.startswith("%h/") else value
    return f'"{value}"' if any(c.isspace() for c in value) else value


def render_units(
    exe: str = DEFAULT_EXE,
    rw_paths: tuple[str, ...] = DEFAULT_RW,
    calendar: str = DEFAULT_CALENDAR,
    env_file: str = DEFAULT_ENV_FILE,
) -> dict[str, str]:
    """The three unit files, by name. ``rw_paths`` and ``env_file`` may not exist yet
    ("-" prefix)."""
    rw = " ".join(f"-{_unit_word(p)}" for p in rw_paths)
    words = {"exe": _unit_word(exe), "env_file": _unit_word(env_file)}
    return {
        "skillopt-sleep.service": _DAEMON.format(
            **words, hardening=_HARDENING.format(rw=rw, unit="skillopt-sleep.service")
        ),
        "skillopt-sleep-night.service": _NIGHT.format(
            **words, hardening=_HARDENING.format(rw=rw, unit="skillopt-sleep-night.service")
        ),
        "skillopt-sleep-night.timer": _TIMER.format(calendar=calendar),
    }


def current_executable() -> Path:
    """Absolute path of the ``skillopt-sleep`` script running now (or next to Python)."""
    argv0 = Path(sys.argv[0])
    candidates = [argv0] if argv0.name == "skillopt-sleep" else []
    candidates.append(Path(sys.executable).parent / "skillopt-sleep")
    found = shutil.which("skillopt-sleep")
    candidates += [Path(found)] if found else []
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate.absolute()
    raise InstallError("cannot find the skillopt-sleep executable; pass --exe PATH")


def cron_to_calendar(expression: str) -> str | None:
    """``"M H * * *"`` → ``"*-*-* H:M"``; None for anything a timer cannot say simply."""
    fields = expression.split()
    if len(fields) == 5 and fields[2:] == ["*", "*", "*"] and all(f.isdigit() for f in fields[:2]):
        return f"*-*-* {int(fields[1]):02d}:{int(fields[0]):02d}"
    return None


def _home_relative(path: Path) -> str:
    """``%h/…`` for a path under the home directory (as the repository's units say)."""
    try:
        return "%h/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def unit_dir() -> Path:
    """Where systemd looks for the user's own units: $XDG_CONFIG_HOME/systemd/user."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user"


def writable_paths(config: Mapping[str, Any]) -> tuple[str, ...]:
    """State directory and every configured skill root: what the units may write."""
    out = [str(config_mod.state_dir(config))] + [str(t.root) for t in targets(config)]
    return tuple(dict.fromkeys(out))


def install_systemd(config: Mapping[str, Any], exe: Path) -> tuple[list[Path], list[str]]:
    """Write the user units; return (files written, notes to print)."""
    notes = []
    calendar = cron_to_calendar(str(config["daemon"]["schedule"]))
    if calendar is None:
        calendar = DEFAULT_CALENDAR
        notes.append(
            f"the timer uses OnCalendar={calendar}: daemon.schedule is not a simple "
            "daily time (edit the timer to change it)"
        )
    rw = writable_paths(config)
    for writable in rw:  # ProtectSystem=strict cannot create them later
        Path(writable).mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    directory = unit_dir()
    directory.mkdir(parents=True, exist_ok=True)
    units = render_units(str(exe), rw, calendar, _home_relative(envfile.path()))
    for name, text in units.items():
        path = directory / name
        tmp = path.with_name(f".{name}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
        written.append(path)
    notes += [
        "then enable ONE of them:",
        "  systemctl --user daemon-reload && systemctl --user enable --now skillopt-sleep.service",
        "  systemctl --user daemon-reload && systemctl --user enable --now "
        "skillopt-sleep-night.timer",
        "to keep running while you are logged out: loginctl enable-linger $USER",
    ]
    return written, notes


def uninstall_systemd() -> tuple[list[Path], list[str]]:
    """Remove our unit files and their enablement links; return (removed, notes)."""
    directory = unit_dir()
    removed = []
    for wants in directory.glob("*.wants"):
        for link in wants.iterdir():
            if link.name in UNITS and link.is_symlink():
                link.unlink()
                removed.append(link)
    for name in UNITS:
        path = directory / name
        if path.exists():
            path.unlink()
            removed.append(path)
    notes = [
        "stop what is still running and forget the units:",
        "  systemctl --user stop skillopt-sleep.service skillopt-sleep-night.timer; "
        "systemctl --user daemon-reload",
    ]
    return removed, notes


def cron_block(config: Mapping[str, Any], exe: Path) -> str:
    expression = str(config["daemon"]["schedule"])
    if len(expression.split()) != 5:
        raise InstallError(f"cron needs a 5-field daemon.schedule, not {expression!r}")
    log = config_mod.state_dir(config) / "cron.log"
    env = shlex.quote(str(envfile.path()))
    # cron starts with an empty environment: export the endpoint variables first
    source = f"[ -r {env} ] && set -a && . {env} && set +a;"
    command = f"{source} {shlex.quote(str(exe))} run --once >>{shlex.quote(str(log))} 2>&1"
    return f"{CRON_BEGIN}\n{expression} {command.replace('%', chr(92) + '%')}\n{CRON_END}\n"


def strip_block(crontab: str) -> str:
    """The crontab without our marked block (other lines untouched)."""
    out, inside = [], False
    for line in crontab.splitlines(keepends=True):
        if line.startswith("# BEGIN skillopt-sleep"):
            inside = True
        elif inside and line.startswith(CRON_END):
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)


def _crontab() -> str | None:
    return shutil.which("crontab")


def read_crontab(binary: str) -> str:
    proc = subprocess.run([binary, "-l"], capture_output=True, text=True, check=False)
    if proc.returncode == 0:
        return proc.stdout
    if "no crontab" in proc.stderr.lower():
        return ""
    raise InstallError(f"crontab -l failed: {proc.stderr.strip() or proc.returncode}")


def write_crontab(binary: str, text: str) -> None:
    proc = subprocess.run([binary, "-"], input=text, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise InstallError(f"crontab - failed: {proc.stderr.strip() or proc.returncode}")


def install_cron(config: Mapping[str, Any], exe: Path) -> tuple[bool, str]:
    """Add (or replace) our block; return (installed, block). Without a ``crontab``
    command nothing is written and the caller prints the block instead."""
    block = cron_block(config, exe)
    paths.ensure_private_dir(config_mod.state_dir(config))  # for the log redirect
    binary = _crontab()
    if binary is None:
        return False, block
    current = strip_block(read_crontab(binary))
    if current and not current.endswith("\n"):
        current += "\n"
    write_crontab(binary, current + block)
    return True, block


def uninstall_cron() -> bool:
    """Remove our block; False when there is no crontab command or no block."""
    binary = _crontab()
    if binary is None:
        return False
    current = read_crontab(binary)
    stripped = strip_block(current)
    if stripped == current:
        return False
    write_crontab(binary, stripped)
    return True
