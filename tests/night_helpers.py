"""What the end-to-end night tests share: a root with the generated corpus and the user's
own skill, its configuration, a night run in a child process (to kill or pause it), and
read-only looks at the state it leaves."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from benchmarks.corpus import write_corpus
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.store import db_path
from tests.cli_helpers import console_script

PROJECT = Path(__file__).resolve().parents[1]
CHILD = PROJECT / "tests" / "night_child.py"
CLI = [str(console_script())]
# the generated corpus's user wrote this commit-message skill (short: the simulated target
# reads every token of a skill, tests/trainer/test_trainer_sim.py)
USER_SKILL = PROJECT / "tests" / "fixtures" / "skills" / "commit-message"

# Small and fast, yet powered: val >= 8 tasks for the top skills of the 30-session corpus.
OVERRIDES: dict[str, Any] = {
    "models.backend": "sim",
    "mining.split_fractions": {"train": 0.4, "val": 0.4, "test": 0.2},
    "trainer.epochs": 1,
    "trainer.steps_per_epoch": 3,
    "trainer.samples": 2,
    "trainer.minibatch": 4,
    "night.max_skills": 2,
    # the morning deadline a minute before now: a test night has about a day, whenever the
    # tests run (a fixed "23:59" left a night run at 23:58 one minute, and sized it to that)
    "daemon.deadline": (datetime.now() - timedelta(minutes=1)).strftime("%H:%M"),
    # the corpus's managed skills are new: promote their first version without review
    # (the default stages it; tests/promotion/test_promote_trust.py covers that)
    "promotion.auto_promote_new_skills": True,
}


def make_root(
    root: Path, *, sessions: int = 30, seed: int = 0, user_skill: bool = True, **extra: Any
) -> dict[str, Any]:
    """Corpus under root/logs, the user's own commit-message skill in root/skills."""
    if not (root / "logs").exists():
        write_corpus(root / "logs", sessions, seed=seed)
    (root / "skills").mkdir(exist_ok=True)
    if user_skill and not (root / "skills" / "commit-message").exists():
        shutil.copytree(USER_SKILL, root / "skills" / "commit-message")
    return load_config(root, **extra)


def load_config(root: Path, **extra: Any) -> dict[str, Any]:
    overrides = {
        "state_dir": str(root / "state"),
        "sources.claude.roots": [str(root / "logs" / ".claude")],
        "sources.codex.roots": [str(root / "logs" / ".codex")],
        "promotion.targets": [str(root / "skills")],
        **OVERRIDES,
        **extra,
    }
    return config_mod.load(overrides=overrides, environ={})


def write_yaml(root: Path, config: dict[str, Any]) -> Path:
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("SKILLOPT_SLEEP_")}
    e["PYTHONPATH"] = str(PROJECT)
    return e


def tree_digest(path: Path) -> dict[str, str]:
    return {
        str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


# -- the child night (tests/night_child.py) -------------------------------------------------
class Child:
    def __init__(self, root: Path, config: dict[str, Any], run: int, **opts: Any) -> None:
        (root / "runs").mkdir(exist_ok=True)
        cfg = root / "runs" / "config.json"
        cfg.write_text(json.dumps(config))
        self.out = root / "runs" / f"out{run}.json"
        self.calls = root / "runs" / f"calls{run}.log"
        self.state = Path(config["state_dir"])
        args = [sys.executable, str(CHILD), str(cfg), str(self.out), str(self.calls)]
        args += ["--sleep", str(opts.get("sleep", 0.0))]
        if opts.get("pause_at"):
            args += ["--pause-at", opts["pause_at"]]
        self.proc = subprocess.Popen(args, cwd=PROJECT, env=env(), stderr=subprocess.PIPE)

    def wait(self, timeout: float = 60) -> dict[str, Any]:
        _, err = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, err.decode()[-2000:]
        return json.loads(self.out.read_text())

    def live_calls(self) -> list[str]:
        return self.calls.read_text().split() if self.calls.exists() else []

    def kill_when(self, ready: Any, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while not ready():
            assert self.proc.poll() is None, "the night ended before the kill point"
            assert time.monotonic() < end, "kill point not reached"
            time.sleep(0.01)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        assert self.proc.returncode == -signal.SIGKILL

    def paused(self) -> bool:
        return Path(f"{self.out}.paused").exists()


def query(state: Path, sql: str) -> list[tuple]:
    if not db_path(state).exists():
        return []
    conn = sqlite3.connect(f"file:{db_path(state)}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:  # tables not created yet
        return []
    finally:
        conn.close()


def rollout_keys(state: Path) -> set[str]:
    return {r[0] for r in query(state, "SELECT key FROM rollouts")}


def comparable(out: dict[str, Any], root: Path) -> dict[str, Any]:
    """The outcome modulo night id, paths, timings and how many calls were live."""
    text = json.dumps(out["summary"]).replace(out["night"], "<NIGHT>").replace(str(root), "<R>")
    summary = json.loads(text)
    summary["ingest"].pop("seconds", None)
    summary["usage"].pop("live_calls", None)
    for s in summary["skills"]:
        for key in ("live_calls", "cached_calls", "seconds"):
            s["usage"].pop(key, None)
        for used in s["usage"]["by_role"].values():  # wall time of the calls paid live
            used.pop("seconds", None)
            used.pop("timed_calls", None)
        s["plan"].pop("available_seconds")  # the time left when the night was planned
    md = Path(out["reports"]["md"]).read_text().replace(out["night"], "<NIGHT>")
    md = md.replace(str(root), "<R>")  # the report names the skill files written
    return {"summary": summary, "md": md}


def best_texts(root: Path, night: str) -> dict[str, str]:
    rows = query(root / "state", f"SELECT step, result FROM night_steps WHERE night_id = '{night}'")
    return {s: json.loads(r)["best_text"] for s, r in rows if s.startswith("train:")}
