"""A night in a child process, for the kill -9 / resume tests (not collected by pytest).

    python tests/night_child.py CONFIG.json OUT.json CALLS.log [--sleep S] [--pause-at P]
                                [--mark-at ROLE:N --mark-fd FD]

Runs ``run_night`` on the config (a full config dict as JSON) with the configured
(simulated) backends wrapped so that every call sleeps ``S`` seconds first — kills then
land mid-training — and appends its cache key to ``CALLS.log`` once answered: the live
calls this process made. ``--pause-at ingest`` (ingest checkpointed, mining not started)
or ``--pause-at promote`` (every training run checkpointed, promotion not started) touch
``OUT.json.paused`` and sleep, so a test can kill the night at exactly that point.
``--mark-at target:8 --mark-fd FD`` writes a byte to the inherited pipe FD once the 8th
call of the target has been answered (``--mark-at trainer.propose:apply_edits``: once that
function is entered), and the night goes on: a test sends SIGTERM there (the night stops
as under ``skillopt-sleep run --once``, whose signal handling it uses).
The outcome is written to ``OUT.json`` when the night returns (with ``returned_at``, the
monotonic clock then).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skillopt_sleep.cli.night import _stop_on_signals  # noqa: E402
from skillopt_sleep.night.run import run_night  # noqa: E402
from tests.sim_helpers import competent_roles  # noqa: E402
from trainer.backends.base import Completion, Message, Roles  # noqa: E402
from trainer.calls import current_call_key  # noqa: E402
from trainer.tasks import Task  # noqa: E402


class Slow:
    """A backend that takes ``delay`` seconds per call and logs each answered call's key."""

    def __init__(
        self, inner: Any, delay: float, log: Any, lock: threading.Lock, mark: Any = None
    ) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.concurrency = inner.concurrency
        self.simulation = getattr(inner, "simulation", False)
        self.delay, self.log, self.lock, self.mark = delay, log, lock, mark
        self.answered = 0

    def complete(self, messages: list[Message], **kwargs: Any) -> Completion:
        time.sleep(self.delay)
        result = self.inner.complete(messages, **kwargs)
        with self.lock:
            self.log.write(f"{current_call_key()}\n")
            self.log.flush()
            self.answered += 1
            if self.mark is not None:
                self.mark(self.answered)
        return result


def mark_on_entry(module_name: str, name: str, fd: int) -> None:
    """Write a byte to ``fd`` when ``module_name.name`` is first called (it then runs)."""
    module = importlib.import_module(module_name)
    real = getattr(module, name)
    first = [True]

    def entered(*args: Any, **kwargs: Any) -> Any:
        if first:
            first.clear()
            os.write(fd, b"m")
        return real(*args, **kwargs)

    setattr(module, name, entered)


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
    ap.add_argument("--mark-at", default="", help="ROLE:N or MODULE:FUNCTION")
    ap.add_argument("--mark-fd", type=int)
    args = ap.parse_args()
    config = json.loads(Path(args.config).read_text())
    out = Path(args.out)
    log = open(args.calls, "a")  # noqa: SIM115 - kept open for the whole night
    lock = threading.Lock()
    marks = {}  # role -> called with the number of its answered calls
    where, _, at = args.mark_at.partition(":")
    if "." in where:
        mark_on_entry(where, at, args.mark_fd)
    elif where:
        marks[where] = lambda answered: answered == int(at) and os.write(args.mark_fd, b"m")

    @contextlib.contextmanager
    def roles_factory(cfg: Mapping[str, Any], tasks: list[Task]) -> Iterator[Roles]:
        with competent_roles(cfg, tasks) as roles:
            yield Roles(
                *(
                    Slow(getattr(roles, r), args.sleep, log, lock, marks.get(r))
                    for r in ("optimizer", "target", "judge")
                )
            )
        if args.pause_at == "promote":
            pause(out)

    def progress(msg: str) -> None:
        if args.pause_at == "ingest" and msg.startswith("mining"):
            pause(out)

    with _stop_on_signals() as stop:
        outcome = run_night(config, stop=stop, progress=progress, roles_factory=roles_factory)
    returned_at = time.monotonic()  # the system's monotonic clock: a test compares it with its own
    out.write_text(
        json.dumps(
            {
                "returned_at": returned_at,
                "night": outcome.night_id,
                "status": outcome.status,
                "summary": outcome.to_json(),
                "reports": {k: str(v) for k, v in outcome.reports.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
