"""Progress of a night's model work: the phase, calls done of planned, and an ETA.

Planned calls are the planner's estimate (``trainer.sizing.planned_calls``), and so is the
ETA: the calls left at the plan's seconds per call (configured, or measured on the last
night), never past the night's deadline. It is not extrapolated from the calls so far — a
night's first call is often an optimizer proposal ten times slower than a rollout. With no
seconds per call known yet the ETA is unknown. The meter speaks
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
        planned_seconds: float | None = None,
        deadline: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`planned_seconds`: the plan's wall time for the `planned` calls; `deadline`: when
        training must end, in the clock's seconds."""
        self.planned = max(1, planned)
        self.say = say
        self.phase = "model calls"
        self.done = 0
        self._per_call = None if planned_seconds is None else planned_seconds / self.planned
        self._deadline = deadline
        self._clock = clock
        self._tenths = 0
        self._lock = threading.Lock()

    def eta(self) -> float | None:
        """Seconds left by the plan, capped at the deadline; None when unknown."""
        if self._per_call is None:
            return None
        left = max(0, self.planned - self.done) * self._per_call
        if self._deadline is not None:
            left = min(left, max(0.0, self._deadline - self._clock()))
        return left

    def text(self) -> str:
        eta = self.eta()
        when = "unknown" if eta is None else duration(eta)
        return f"{self.phase}: {self.done} of about {self.planned} calls, ETA {when}"

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
