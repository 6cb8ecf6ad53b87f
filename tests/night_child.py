"""A night in a child process, for the kill -9 / resume tests (not collected by pytest).

    python tests/night_child.py CONFIG.json OUT.json CALLS.log [--sleep S] [--pause-at P]

Runs ``run_night`` on the config (a full config dict as JSON) with the configured
(simulated) backends wrapped so that every call sleeps ``S`` seconds first — kills then
land mid-training — and appends its cache key to ``CALLS.log`` once answered: the live
calls this process made. ``--pause-at ingest`` (ingest checkpointed, mining not started)
or ``--pause-at promote`` (every training run checkpointed, promotion not started) touch
``OUT.json.paused`` and sleep, so a test can kill the night at exactly that point.
The outcome is written to ``OUT.json`` when the night returns.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skillopt_sleep.night.run import run_night  # noqa: E402
from tests.sim_helpers import competent_roles  # noqa: E402
from trainer.backends.base import Completion, Message, Roles  # noqa: E402
from trainer.calls import current_call_key  # noqa: E402
from trainer.tasks import Task  # noqa: E402


class Slow:
    """A backend that takes ``delay`` seconds per call and logs each answered call's key."""

    def __init__(self, inner: Any, delay: float, log: Any, lock: threading.Lock) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.concurrency = inner.concurrency
        self.simulation = getattr(inner, "simulation", False)
        self.delay, self.log, self.lock = delay, log, lock

    def complete(self, messages: list[Message], **kwargs: Any) -> Completion:
        time.sleep(self.delay)
        result = self.inner.complete(messages, **kwargs)
        with self.lock:
            self.log.write(f"{current_call_key()}\n")
            self.log.flush()
        return result


def pause(out: Path) -> None:
    Path(f"{out}.paused").touch()
    time.sleep(120)  # the test kills us here


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("out")
    ap.add_argument("calls")
    ap.add_argument("--sleep", type=float, default=0.0)
    ap.add_argument("--pause-at", choices=["ingest", "promote"])
    args = ap.parse_args()
    config = json.loads(Path(args.config).read_text())
    out = Path(args.out)
    log = open(args.calls, "a")  # noqa: SIM115 - kept open for the whole night
    lock = threading.Lock()

    @contextlib.contextmanager
    def roles_factory(cfg: Mapping[str, Any], tasks: list[Task]) -> Iterator[Roles]:
        with competent_roles(cfg, tasks) as roles:
            yield Roles(
                *(
                    Slow(b, args.sleep, log, lock)
                    for b in (roles.optimizer, roles.target, roles.judge)
                )
            )
        if args.pause_at == "promote":
            pause(out)

    def progress(msg: str) -> None:
        if args.pause_at == "ingest" and msg.startswith("mining"):
            pause(out)

    outcome = run_night(config, progress=progress, roles_factory=roles_factory)
    out.write_text(
        json.dumps(
            {
                "night": outcome.night_id,
                "status": outcome.status,
                "summary": outcome.summary,
                "reports": {k: str(v) for k, v in outcome.reports.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
