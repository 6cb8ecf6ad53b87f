"""systemd user units verify; install/uninstall round trips for systemd and cron."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillopt_sleep.cli import main
from skillopt_sleep.running import install as I

REPO_UNITS = Path(__file__).resolve().parents[2] / "systemd"


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
    assert f"{exe} run --once" in store.read_text()
    assert store.read_text().count("0 2 * * * [ -r ") == 1
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


FAKE_KEY = "sk-test-" + "e" * 12  # obviously fake, built at run time


def test_install_systemd_writes_the_environment_file_the_units_read(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scheduled nights do not inherit the shell: install writes the endpoint variables
    (0600) and both services name the file with EnvironmentFile=- (optional)."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("TARGET_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("DEEPSEEK_KEY", "ds-" + FAKE_KEY)  # named by the config below
    monkeypatch.setenv("UNRELATED", "not copied")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # doctor calls nothing remote
    cfg = isolated_home / ".config" / "skillopt-sleep" / "config.yaml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("models:\n  optimizer:\n    api_key_env: DEEPSEEK_KEY\n")
    exe = _executable(tmp_path / "bin" / "skillopt-sleep")
    doctor = CliRunner().invoke(main, ["doctor"])
    assert (
        "DEEPSEEK_KEY, OPENAI_API_KEY, OPENAI_BASE_URL, TARGET_MODEL set in this" in doctor.output
    )

    out = CliRunner().invoke(main, ["install", "systemd", "--exe", str(exe), "--env-file"])
    assert out.exit_code == 0, out.output
    env_file = isolated_home / ".config" / "skillopt-sleep" / "env"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert env_file.read_text().splitlines()[1:] == [
        f"DEEPSEEK_KEY='ds-{FAKE_KEY}'",
        f"OPENAI_API_KEY='{FAKE_KEY}'",
        "OPENAI_BASE_URL='http://127.0.0.1:9/v1'",
        "TARGET_MODEL='gpt-4o-mini'",
    ]
    assert FAKE_KEY not in out.output and "OPENAI_API_KEY" in out.output
    unit_dir = isolated_home / ".config" / "systemd" / "user"
    for name in ("skillopt-sleep.service", "skillopt-sleep-night.service"):
        assert "EnvironmentFile=-%h/.config/skillopt-sleep/env\n" in (unit_dir / name).read_text()
    _verify(sorted(unit_dir.glob("skillopt-sleep*")), isolated_home, tmp_path)
    doctor = CliRunner().invoke(main, ["doctor"])
    assert "holds this shell's endpoint variables" in doctor.output

    # a key changed in the shell is noticed, and a second install merges it in
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY + "2")
    assert "OPENAI_API_KEY set in this shell" in CliRunner().invoke(main, ["doctor"]).output
    out = CliRunner().invoke(main, ["install", "systemd", "--exe", str(exe), "--env-file"])
    assert f"OPENAI_API_KEY='{FAKE_KEY}2'" in env_file.read_text()
    assert "TARGET_MODEL='gpt-4o-mini'" in env_file.read_text()
    out = CliRunner().invoke(main, ["uninstall"])
    assert env_file.exists() and "kept" in out.output


def test_without_a_terminal_install_only_says_what_nights_will_miss(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    exe = _executable(tmp_path / "bin" / "skillopt-sleep")
    out = CliRunner().invoke(main, ["install", "systemd", "--exe", str(exe)])
    assert out.exit_code == 0, out.output
    assert "scheduled nights will not see OPENAI_API_KEY" in out.output
    assert not (isolated_home / ".config" / "skillopt-sleep" / "env").exists()


def test_the_cron_line_exports_the_environment_file(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run the installed cron command the way cron does: sh, an empty environment."""
    store = _fake_crontab(tmp_path, monkeypatch)
    seen = tmp_path / "seen-env"
    exe = tmp_path / "bin" / "skillopt-sleep"
    exe.parent.mkdir(parents=True)
    exe.write_text(f"#!/bin/sh\nenv > {seen}\n")
    exe.chmod(0o755)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    out = CliRunner().invoke(main, ["install", "cron", "--exe", str(exe), "--env-file"])
    assert out.exit_code == 0, out.output
    line = next(ln for ln in store.read_text().splitlines() if "run --once" in ln)
    command = " ".join(line.split()[5:]).replace("\\%", "%")
    subprocess.run(["/bin/sh", "-c", command], env={"PATH": "/usr/bin:/bin"}, check=True)
    env = dict(ln.split("=", 1) for ln in seen.read_text().splitlines() if "=" in ln)
    assert env["OPENAI_API_KEY"] == FAKE_KEY and env["OPENAI_BASE_URL"] == "http://127.0.0.1:9/v1"
