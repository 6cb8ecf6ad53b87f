"""``status``: last night's outcome, pending reviews, the next run, budget used, daemon alive.

``gather`` builds a typed ``Status``; the renderings and ``status --json`` read it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep.report import headline, skill_sentence
from skillopt_sleep.report.document import NightSummary, NightUsage
from skillopt_sleep.running.heartbeat import daemon_status
from skillopt_sleep.running.lock import LockInfo, current_holder
from skillopt_sleep.store import open_for_reading
from trainer.shapes import LISTED_NIGHT, STATUS, stamp, unstamped

if TYPE_CHECKING:
    import sqlite_utils

    # Both have execute(sql, params) -> cursor, which is all this module uses: status
    # reads through the stdlib (sqlite-utils loads numpy: most of a start-up's cost).
    Db = sqlite3.Connection | sqlite_utils.Database

STATUS_WORDS = {
    "interrupted": "interrupted: its process ended mid-night; the next run resumes it",
    "stopped": "stopped; the next run resumes it",
}


def _summary(text: str | None) -> NightSummary | None:
    return NightSummary.from_json(json.loads(text)) if text else None


def last_night(db: Db) -> dict[str, Any] | None:
    """The last night's id, status, times, error and summary (a ``NightSummary``)."""
    row = db.execute(
        "SELECT id, status, started_at, finished_at, summary, error FROM nights "
        "WHERE NOT dry_run ORDER BY started_at DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None
    night_id, status, started, finished, summary, error = row
    return {
        "id": night_id,
        "status": status,
        "started_at": started,
        "finished_at": finished,
        "error": error,
        "summary": _summary(summary),
    }


def night_status(recorded: str, holder: LockInfo | None, daemon: dict[str, Any]) -> str:
    """The store says "running" until the night ends; a night that was killed never ends,
    so believe it only while a live process holds the lock for a night."""
    if recorded != "running":
        return recorded
    if holder is not None and (holder.holder == "night" or daemon.get("state") == "night"):
        return "running"
    return "interrupted"


@dataclass(frozen=True)
class ListedNight:
    """One night as ``nights`` lists it: id, status (a killed night is "interrupted"),
    times, and the report's answer (None before it has one)."""

    id: str
    status: str
    started_at: str | None
    finished_at: str | None
    headline: str | None

    def to_json(self) -> dict[str, Any]:
        return stamp(LISTED_NIGHT, asdict(self))

    @classmethod
    def from_json(cls, stored: Any) -> ListedNight:
        """A printed item of any version (``ShapeError`` for a newer release's)."""
        d = unstamped(LISTED_NIGHT, stored)
        return cls(d["id"], d["status"], d.get("started_at"), d.get("finished_at"),
                   d.get("headline"))  # fmt: skip


def nights(db: Db, state_dir: Path, limit: int = 50) -> list[ListedNight]:
    """The newest nights first."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'nights'").fetchone():
        return []
    rows = db.execute(
        "SELECT id, status, started_at, finished_at, summary FROM nights WHERE NOT dry_run "
        "ORDER BY started_at DESC, id DESC LIMIT ?",
        [limit],
    ).fetchall()
    holder, daemon = current_holder(state_dir), daemon_status(state_dir)
    out = []
    for night_id, status, started, finished, summary in rows:
        data = _summary(summary)
        out.append(
            ListedNight(
                night_id,
                night_status(status, holder, daemon),
                started,
                finished,
                headline(data) if data else None,
            )
        )
    return out


@dataclass(frozen=True)
class Review:
    """A staged candidate awaiting adopt or reject."""

    name: str
    night_id: str | None
    reason: str | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Review:
        return cls(data["name"], data.get("night_id"), data.get("reason"))


@dataclass(frozen=True)
class LastNight:
    """The last night as ``status`` tells it: its answer, each skill's sentence, problems."""

    id: str
    status: str  # a killed night is "interrupted"
    finished_at: str | None
    headline: str | None
    skills: tuple[str, ...]
    problems: tuple[str, ...]
    error: str | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "finished_at": self.finished_at,
                "headline": self.headline, "skills": list(self.skills),
                "problems": list(self.problems), "error": self.error}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LastNight:
        return cls(data["id"], data["status"], data.get("finished_at"), data.get("headline"),
                   tuple(data.get("skills") or ()), tuple(data.get("problems") or ()),
                   data.get("error"))  # fmt: skip


@dataclass(frozen=True)
class Status:
    """What ``status`` shows (``--json`` prints ``to_json``): last night, who holds the
    lock now, pending reviews, last night's spend against its budget, the daemon."""

    last_night: LastNight | None
    running_now: str | None
    pending_reviews: tuple[Review, ...]
    budget_used: NightUsage | None
    daemon: Mapping[str, Any]  # running.heartbeat.daemon_status

    def to_json(self) -> dict[str, Any]:
        return stamp(
            STATUS,
            {
                "last_night": self.last_night.to_json() if self.last_night else None,
                "running_now": self.running_now,
                "pending_reviews": [r.to_json() for r in self.pending_reviews],
                "budget_used": self.budget_used.to_json() if self.budget_used else None,
                "daemon": dict(self.daemon),
            },
        )

    @classmethod
    def from_json(cls, stored: Any) -> Status:
        """A printed status of any version (``ShapeError`` for a newer release's)."""
        data = unstamped(STATUS, stored)
        night, used = data.get("last_night"), data.get("budget_used")
        return cls(
            last_night=LastNight.from_json(night) if night else None,
            running_now=data.get("running_now"),
            pending_reviews=tuple(Review.from_json(r) for r in data.get("pending_reviews") or ()),
            budget_used=NightUsage.from_json(used) if used else None,
            daemon=dict(data.get("daemon") or {}),
        )


def pending_reviews(db: Db) -> tuple[Review, ...]:
    """Staged candidates awaiting adopt or reject (as ``promotion.versions.pending``)."""
    rows = db.execute(
        "SELECT name, night_id, reason FROM promotions WHERE status = 'staged' ORDER BY id"
    ).fetchall()
    return tuple(Review(name, night, reason) for name, night, reason in rows)


def gather_fast(state_dir: Path, open_db: Callable[[], Db]) -> Status:
    """``gather`` through a plain sqlite3 connection; through ``open_db`` (which creates,
    migrates, and names the store in its errors) when there is no store yet or a query
    fails (an older schema, a damaged file, still locked after the busy timeout)."""
    conn = open_for_reading(state_dir)
    if conn is not None:
        try:
            return gather(conn, state_dir)
        except sqlite3.DatabaseError:
            pass
        finally:
            conn.close()
    return gather(open_db(), state_dir)


def gather(db: Db, state_dir: Path) -> Status:
    night = last_night(db)
    summary: NightSummary | None = night["summary"] if night else None
    holder = current_holder(state_dir)
    daemon = daemon_status(state_dir)
    return Status(
        last_night=LastNight(
            id=night["id"],
            status=night_status(night["status"], holder, daemon),
            finished_at=night["finished_at"],
            headline=headline(summary) if summary else None,
            skills=tuple(skill_sentence(s, summary) for s in summary.skills) if summary else (),
            problems=tuple(summary.problems) if summary else (),
            error=night["error"],
        )
        if night
        else None,
        running_now=holder.describe() if holder else None,
        pending_reviews=pending_reviews(db),
        budget_used=summary.usage if summary else None,
        daemon=daemon,
    )


def render(status: Status) -> str:
    lines = []
    night = status.last_night
    if night is None:
        lines.append("last night: none yet (skillopt-sleep run --once, or install the daemon)")
    else:
        words = STATUS_WORDS.get(night.status, night.status)
        lines.append(f"last night: {night.id} ({words})")
        if night.headline:
            lines.append(f"  {night.headline}")
        lines += [f"  - {s}" for s in night.skills]
        if night.problems:
            lines.append(f"  {len(night.problems)} problem(s): {night.problems[0]}")
        if night.error:
            lines.append(f"  stopped by an error: {night.error}")
    if status.running_now:
        lines.append(f"running now: {status.running_now}")
    reviews = status.pending_reviews
    if reviews:
        names = ", ".join(sorted({r.name for r in reviews}))
        lines.append(f"pending reviews: {len(reviews)} ({names}); see `skillopt-sleep diff NAME`,"
                     " then `adopt NAME` or `reject NAME`")  # fmt: skip
    else:
        lines.append("pending reviews: none")
    daemon = status.daemon
    if daemon["alive"]:
        lines.append(f"daemon: running (pid {daemon['pid']}), next night {daemon['next_run']}")
    else:
        lines.append(
            "daemon: not running (skillopt-sleep install systemd, or: skillopt-sleep daemon)"
        )
    usage = status.budget_used
    if usage:
        b = usage.budget
        unknown = usage.cost_unknown
        lines.append(
            f"budget used last night: {usage.calls} of {b.get('max_calls') or 'unlimited'} "
            f"calls, {usage.tokens} tokens, ${usage.cost_usd:.4f} of "
            f"${b.get('max_cost_usd') or 'unlimited'}"
            + (f" (cost unknown for {', '.join(unknown)})" if unknown else "")
        )
    return "\n".join(lines)


def render_brief(status: Status) -> str:
    """A few lines for inside an agent (the plugins' last-night command and skill)."""
    night = status.last_night
    if night is None:
        lines = ["skillopt-sleep: no night has run yet"]
    else:
        words = STATUS_WORDS.get(night.status, night.status)
        headline = f": {night.headline}" if night.headline else ""
        lines = [f"skillopt-sleep, night {night.id} ({words}){headline}"]
        lines += [f"- {s}" for s in night.skills]
        if night.problems:
            lines.append(f"problem: {night.problems[0]}")
    reviews = sorted({r.name for r in status.pending_reviews})
    if reviews:
        lines.append(
            f"waiting for your review: {', '.join(reviews)} "
            "(skillopt-sleep diff NAME, then adopt NAME or reject NAME)"
        )
    daemon = status.daemon
    if daemon["alive"]:
        lines.append(f"next night: {daemon['next_run']}")
    return "\n".join(lines)
