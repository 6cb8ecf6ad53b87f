"""systemd user units verify; install/uninstall round trips for systemd and cron."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillopt_sleep import install as I
from skillopt_sleep.cli import main

REPO_UNITS = Path(__file__).resolve().parents[1] / "systemd"


def _systemd_analyze() -> str:
    """systemd-analyze, installing Debian's ``systemd`` package when missing (CI as root)."""
    found = shutil.which("systemd-analyze")
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", "systemd"],
            capture_output=True,
            timeout=300,
            check=False,
        )
        found = shutil.which("systemd-analyze")
    if found is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd)")
    return found


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _verify(units: list[Path], home: Path, tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        "SYSTEMD_LOG_LEVEL": "notice",
    }
    proc = subprocess.run(
        [_systemd_analyze(), "--user", "verify", *map(str, units)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    # verify exits 0 on unknown keys but warns: any output is a finding.
    assert proc.returncode == 0 and not proc.stdout.strip() and not proc.stderr.strip(), (
        proc.stdout + proc.stderr
    )


def test_repo_units_are_the_rendered_defaults() -> None:
    for name, text in I.render_units().items():
        assert (REPO_UNITS / name).read_text() == text, f"regenerate systemd/{name}"
    timer = (REPO_UNITS / "skillopt-sleep-night.timer").read_text()
    assert "OnCalendar=*-*-* 02:00" in timer and "Persistent=true" in timer
    service = (REPO_UNITS / "skillopt-sleep-night.service").read_text()
    assert "Type=oneshot" in service and "run --once" in service


def test_repo_units_verify(isolated_home: Path, tmp_path: Path) -> None:
    _executable(isolated_home / ".local" / "bin" / "skillopt-sleep")
    _verify(sorted(REPO_UNITS.glob("skillopt-sleep*")), isolated_home, tmp_path)


def test_install_systemd_round_trip(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = _executable(tmp_path / "bin dir" / "skillopt-sleep")  # a space, to test quoting
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    out = CliRunner().invoke(main, ["install", "systemd", "--exe", str(exe)])
    assert out.exit_code == 0, out.output
    unit_dir = tmp_path / "cfg" / "systemd" / "user"
    units = sorted(unit_dir.glob("skillopt-sleep*"))
    assert [u.name for u in units] == sorted(I.UNITS)
    assert "systemctl --user daemon-reload && systemctl --user enable --now" in out.output
    text = (unit_dir / "skillopt-sleep.service").read_text()
    assert f'ExecStart="{exe}" daemon' in text
    assert str(isolated_home / ".claude" / "skills") in text
    assert (isolated_home / ".local" / "state" / "skillopt-sleep").is_dir()
    _verify(units, isolated_home, tmp_path)
    wants = unit_dir / "default.target.wants"
    wants.mkdir()
    (wants / "skillopt-sleep.service").symlink_to(unit_dir / "skillopt-sleep.service")
    out = CliRunner().invoke(main, ["uninstall", "systemd"])
    assert out.exit_code == 0, out.output
    assert list(unit_dir.glob("skillopt-sleep*")) == [] and list(wants.iterdir()) == []
    assert "systemctl --user stop" in out.output


def _fake_crontab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    store = tmp_path / "crontab.txt"
    script = tmp_path / "fakebin" / "crontab"
    script.parent.mkdir()
    script.write_text(
        "#!/bin/sh\n"
        f'STORE="{store}"\n'
        'if [ "$1" = "-l" ]; then\n'
        '  [ -f "$STORE" ] || { echo "no crontab for $USER" >&2; exit 1; }\n'
        '  cat "$STORE"; exit 0\n'
        "fi\n"
        'cat > "$STORE"\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    return store


def test_install_cron_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _fake_crontab(tmp_path, monkeypatch)
    exe = _executable(tmp_path / "bin" / "skillopt-sleep")
    runner = CliRunner()
    out = runner.invoke(main, ["install", "cron", "--exe", str(exe)])
    assert out.exit_code == 0, out.output
    assert f"0 2 * * * {exe} run --once" in store.read_text()
    store.write_text("MAILTO=me\n" + store.read_text() + "5 * * * * backup\n")
    assert runner.invoke(main, ["install", "cron", "--exe", str(exe)]).exit_code == 0
    assert store.read_text().count(I.CRON_BEGIN) == 1  # replaced, not duplicated
    out = runner.invoke(main, ["uninstall", "cron"])
    assert out.exit_code == 0 and "removed" in out.output
    assert store.read_text() == "MAILTO=me\n5 * * * * backup\n"


def test_cron_without_crontab_prints_the_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no crontab anywhere
    exe = _executable(tmp_path / "bin" / "skillopt-sleep")
    out = CliRunner().invoke(main, ["install", "cron", "--exe", str(exe)])
    assert out.exit_code == 0 and "crontab is not installed" in out.output
    assert I.CRON_BEGIN in out.output


def test_cron_refuses_seconds_schedule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_DAEMON__SCHEDULE", "0 0 2 * * *")
    exe = _executable(tmp_path / "bin" / "skillopt-sleep")
    out = CliRunner().invoke(main, ["install", "cron", "--exe", str(exe)])
    assert out.exit_code == 2 and "5-field" in out.output
    assert I.cron_to_calendar("30 1 * * *") == "*-*-* 01:30"
    assert I.cron_to_calendar("0 2 * * 1") is None
