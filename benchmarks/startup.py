"""Start-up cost of the light commands: CPU seconds and peak RSS per command.

    python benchmarks/startup.py                        # this checkout
    python benchmarks/startup.py --against /tmp/before  # and another source tree, alternating

Each run is a fresh interpreter doing what the console script does (import the CLI root,
call it); CPU (user + system) and peak RSS come from ``os.wait4`` on that child alone.
``status`` reads a store created beforehand (the first ``status`` on a new state directory
creates the store, which is not start-up). ``--against DIR`` runs a second source tree
(e.g. ``git archive main | tar -x -C /tmp/before``) with the same interpreter, the two
alternating run by run, and prints after/before ratios. Goal (issue 10): <= 0.2 s CPU,
<= 40 MB for each command. Figures on a loaded machine are noisy: note ``uptime``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = "import sys; from skillopt_sleep.cli import main; sys.exit(main())"
COMMANDS = [["--help"], ["--version"], ["status"], ["tasks", "--help"]]
GOAL_CPU_S, GOAL_RSS_MB = 0.2, 40.0


def run_once(src: Path, args: list[str], state_dir: Path) -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) of one ``skillopt-sleep ARGS`` run from ``src``."""
    # No user config: the same defaults on both sides. Bytecode caches on, as in an
    # installed package (PYTHONDONTWRITEBYTECODE=1 would measure compiling our sources).
    env = {**os.environ, "PYTHONPATH": str(src), "XDG_CONFIG_HOME": str(state_dir / "config")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = [sys.executable, "-c", LAUNCH, "--state-dir", str(state_dir), *args]
    proc = subprocess.Popen(  # cwd: `python -c` puts it first on sys.path, before PYTHONPATH
        argv, env=env, cwd=state_dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode:
        raise SystemExit(f"{src}: skillopt-sleep {' '.join(args)} exited {proc.returncode}: {err}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def prepare(src: Path, state_dir: Path) -> None:
    """Create and migrate the store once, so ``status`` measures reading, not creating;
    run every command once, so the bytecode caches exist."""
    state_dir.mkdir()
    for args in [["status"], *COMMANDS]:
        run_once(src, args, state_dir)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (median shown)")
    parser.add_argument("--against", type=Path, help="another source tree to compare with")
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    opts = parser.parse_args(argv)
    sides = {"now": ROOT} | ({"before": opts.against.resolve()} if opts.against else {})
    with tempfile.TemporaryDirectory() as tmp:
        states = {name: Path(tmp) / name for name in sides}
        for name, src in sides.items():
            prepare(src, states[name])
        say = (lambda *_: None) if opts.json else print
        say(f"{'command':16} {'side':7} {'CPU s':>7} {'RSS MB':>7}  goal <= {GOAL_CPU_S} s, "
            f"<= {GOAL_RSS_MB:.0f} MB; median of {opts.runs}")  # fmt: skip
        results: dict[str, dict[str, dict[str, float]]] = {}
        for args in COMMANDS:
            samples: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
            for _ in range(opts.runs):
                for name, src in sides.items():  # alternate, so drifting load hits both
                    samples[name].append(run_once(src, args, states[name]))
            medians = {
                name: (statistics.median(c for c, _ in s), statistics.median(r for _, r in s))
                for name, s in samples.items()
            }
            command = " ".join(args)
            results[command] = {n: {"cpu_s": c, "rss_mb": r} for n, (c, r) in medians.items()}
            for name, (cpu, rss) in medians.items():
                ok = "ok" if cpu <= GOAL_CPU_S and rss <= GOAL_RSS_MB else "MISSED"
                line = f"{command:16} {name:7} {cpu:7.3f} {rss:7.1f}"
                say(f"{line}  {ok if name == 'now' else ''}".rstrip())
            if "before" in medians:
                (cpu, rss), (cpu0, rss0) = medians["now"], medians["before"]
                say(f"{'':16} {'ratio':7} {cpu / cpu0:7.2f} {rss / rss0:7.2f}  (now / before)")
    if opts.json:
        print(json.dumps({"runs": opts.runs, "load": os.getloadavg(), "commands": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
