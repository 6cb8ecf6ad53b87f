"""How many CPU threads llama.cpp gets: measured when the servers start, not ``nproc``.

llama.cpp splits every matrix product across its threads and waits for all of them at a
barrier. When another process holds one of the cores, the thread on that core runs only in
time slices and every barrier waits for it: on this project's 2-core machine, with the other
core busy, 2 threads decoded 2.6x slower than 1 (with OpenMP's default spinning; up to 14x
in the issue's measurement). On an idle machine 2 threads are faster. So the choice depends
on what else runs right now, and is measured:

1. count the cores that are idle now (``/proc/stat`` over half a second; elsewhere the load
   average); with at most one idle core the answer is 1 thread, without probing;
2. otherwise time one short fixed generation with 1 thread and with the idle-core count
   (best of ``PROBE_RUNS``: a single timing once chose 1 thread on an idle machine and
   doubled a night's time), and keep the faster — the larger count only if it is at least
   ``MARGIN`` faster, because one thread is the choice that never falls off the cliff if
   the load comes back.
"""

from __future__ import annotations

import json
import os
import time
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

MARGIN = 1.2  # more threads must be this much faster to be chosen
MAX_THREADS = 8  # llama.cpp gains little beyond this on small models
PROBE_TOKENS = 24
PROBE_RUNS = 2
_PROBE_PROMPT = (
    "List the steps to review a pull request that changes a Python function's signature, "
    "its callers and its tests. Be concrete."
)


class _Server(Protocol):
    @property
    def base_url(self) -> str: ...

    def start(self) -> Any: ...
    def stop(self) -> None: ...


@dataclass(frozen=True)
class ThreadChoice:
    threads: int
    probe_seconds: dict[int, float]  # threads -> seconds for the probe generation
    idle_cores: float | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _cpu_times() -> list[tuple[int, int]] | None:
    """(idle, total) jiffies per CPU from /proc/stat; None where it does not exist."""
    try:
        lines = open("/proc/stat").read().splitlines()  # noqa: SIM115 - tiny read
    except OSError:
        return None
    out = []
    for line in lines:
        name, *fields = line.split()
        if name.startswith("cpu") and name != "cpu":
            values = [int(v) for v in fields[:8]]
            out.append((values[3] + values[4], sum(values)))  # idle + iowait
    return out or None


def idle_cores(interval_s: float = 0.5) -> float:
    """How many cores' worth of CPU nobody used during ``interval_s`` (e.g. 1.3)."""
    first = _cpu_times()
    if first is None:
        n = os.cpu_count() or 1
        return max(0.0, n - os.getloadavg()[0])
    time.sleep(interval_s)
    second = _cpu_times() or first
    total = 0.0
    for (i0, t0), (i1, t1) in zip(first, second, strict=False):
        if t1 > t0:
            total += (i1 - i0) / (t1 - t0)
    return total


def probe_seconds(base_url: str) -> float:
    """Best wall time of PROBE_RUNS short, fixed generations (temperature 0, PROBE_TOKENS
    tokens, the prompt prefilled each time): a moment's disturbance does not decide."""
    return min(_generate(base_url) for _ in range(PROBE_RUNS))


def _generate(base_url: str) -> float:
    body = {
        "messages": [{"role": "user", "content": _PROBE_PROMPT}],
        "max_tokens": PROBE_TOKENS,
        "temperature": 0,
        "cache_prompt": False,  # every run prefills, as the night's calls mostly do
    }
    req = urllib.request.Request(
        f"{base_url}/chat/completions",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
    )
    t0 = time.monotonic()
    with urllib.request.urlopen(req, timeout=600) as resp:
        resp.read()
    return time.monotonic() - t0


def choose_threads(
    make_server: Callable[[int], _Server],
    *,
    idle: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> ThreadChoice:
    """Measure and choose (see the module docstring). ``make_server(n)`` returns a server
    (not started) with ``n`` threads; each probe starts one, times it and stops it."""
    idle = idle_cores() if idle is None else idle
    wide = min(MAX_THREADS, int(idle + 0.25))
    if wide <= 1:
        return ThreadChoice(1, {}, round(idle, 2), f"{idle:.1f} idle core(s): 1 thread")
    if progress:
        progress(f"measuring threads: 1 vs {wide} ({idle:.1f} idle cores)")
    times: dict[int, float] = {}
    for n in (1, wide):
        server = make_server(n)
        try:
            server.start()
            times[n] = round(probe_seconds(server.base_url), 3)
        finally:
            server.stop()
    if times[1] >= MARGIN * times[wide]:
        reason = f"{wide} threads {times[1] / times[wide]:.2f}x faster than 1"
        return ThreadChoice(wide, times, round(idle, 2), reason)
    ratio = times[1] / times[wide]
    return ThreadChoice(1, times, round(idle, 2), f"{wide} threads only {ratio:.2f}x faster")
