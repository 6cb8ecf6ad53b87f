"""One promotion step in a child process that kills itself at its N-th write, for the kill
tests (tests/test_promote_kill.py; not collected by pytest).

    python tests/promotion_child.py SPEC.json N OUT.json

SPEC.json: ``{"config": {...}, "op": "promote" | "adopt" | "rollback", "name": ...,
"promote": {keyword arguments of promotion.promote}}``. Once the store is open, every
file-system write (a file opened for writing, a write, fsync, rename, unlink, mkdir,
rmdir, chmod) and every SQLite COMMIT is a write point; at the N-th the process sends
itself SIGKILL before it happens (N = 0: never). The operation is run only when it is not
done yet (an adopt while the candidate is staged, a rollback while the promotion is live;
a promotion is idempotent), so the same command is also the resume. When it returns,
OUT.json gets ``{"writes": <write points passed>, "ran": <whether it ran>}``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skillopt_sleep import config as config_mod  # noqa: E402
from skillopt_sleep import promotion  # noqa: E402
from skillopt_sleep.promotion.verdict import Verdict  # noqa: E402
from skillopt_sleep.promotion.versions import live_rows  # noqa: E402
from skillopt_sleep.store import open_store  # noqa: E402

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class WritePoints:
    """Counts write points and kills this process at the ``kill_at``-th (0: never)."""

    def __init__(self, kill_at: int) -> None:
        self.kill_at = kill_at
        self.passed = 0

    def point(self) -> None:
        self.passed += 1
        if self.passed == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    def wrap(self, fn: Callable[..., Any], writes: Callable[..., bool] = lambda *a, **k: True):
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if writes(*args, **kwargs):
                self.point()
            return fn(*args, **kwargs)

        return wrapped

    def arm(self, conn: Any) -> None:
        for name in ("write", "fsync", "replace", "rename", "unlink", "remove", "mkdir",
                     "rmdir", "chmod", "fchmod"):  # fmt: skip
            setattr(os, name, self.wrap(getattr(os, name)))
        os.open = self.wrap(os.open, lambda path, flags, *a, **k: bool(flags & WRITE_FLAGS))
        conn.set_trace_callback(lambda sql: self.point() if sql.strip() == "COMMIT" else None)


def main() -> None:
    spec_path, kill_at, out = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    spec = json.loads(Path(spec_path).read_text())
    config, name = spec["config"], spec["name"]
    db = open_store(config_mod.state_dir(config))
    points = WritePoints(kill_at)
    points.arm(db.conn)
    ran = True
    if spec["op"] == "promote":
        args = dict(spec["promote"])
        args["verdict"] = Verdict(**args["verdict"])
        promotion.promote(db, config, name, **args)
    elif spec["op"] == "adopt" and promotion.pending(db, name):
        promotion.adopt(db, config, name)
    elif spec["op"] == "rollback" and live_rows(db, name):
        promotion.rollback(db, config, name)
    else:
        ran = False
    db.conn.set_trace_callback(None)
    out.write_text(json.dumps({"writes": points.passed, "ran": ran}))


if __name__ == "__main__":
    main()
