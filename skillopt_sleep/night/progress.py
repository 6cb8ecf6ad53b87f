"""Progress of a night's model work: the phase, calls done of planned, and an ETA.

Planned calls are an upper bound (``TrainSettings.planned_calls``: every step screens and
takes every look of the gate, then the test), so the count usually ends below it and the
ETA — the mean time per call so far times the calls left — errs long. The meter speaks
through the night's progress callback: when the callback has a ``status`` method (the CLI
on a terminal, which redraws one line in place) every call updates it; otherwise it says
a line at the first call (the night's model work began; a night that settles early, far below
its plan, would say nothing else) and one at every tenth of the plan, so logs get a few lines,
not one per call.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


def duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class CallMeter:
    """Counts the night's paid model calls (thread-safe; ``tick`` once per call)."""

    def __init__(
        self,
        planned: int,
        say: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.planned = max(1, planned)
        self.say = say
        self.phase = "model calls"
        self.done = 0
        self._clock = clock
        self._start = clock()
        self._tenths = 0
        self._lock = threading.Lock()

    def text(self) -> str:
        left = max(0, self.planned - self.done)
        eta = (self._clock() - self._start) / max(1, self.done) * left
        return f"{self.phase}: {self.done} of at most {self.planned} calls, ETA {duration(eta)}"

    def tick(self) -> None:
        with self._lock:
            self.done += 1
            status = getattr(self.say, "status", None)
            if status is not None:
                status(self.text())
                return
            tenths = min(10, self.done * 10 // self.planned)
            if tenths > self._tenths or self.done == 1:
                self._tenths = tenths
                self.say(self.text())
