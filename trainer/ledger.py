"""One judged edit set's record in the edits ledger (the ``ledger`` shape,
trainer/shapes.py): what every ``Ledger`` (trainer/cache.py) stores and gives back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

REJECTED, PENDING = "rejected", "pending"
DROPPED = "dropped"  # a pending edit given up without a verdict: reported, never stored


@dataclass(frozen=True)
class LedgerRecord:
    """One edit set's entry in the edits ledger (the ``ledger`` shape, trainer/shapes.py):
    what was tried, where, and whether it is rejected (never evaluated again) or pending
    (its gate evidence goes on next run). The one place the record is put together: the
    run's rejections and pending edits (trainer/state.py), a user's reject or rollback in
    promotion; every ledger's ``recent`` and ``pending`` give it back."""

    status: str  # rejected | pending (| dropped, in a run's rejected list only)
    where: str
    reason: str
    edits: tuple[dict[str, Any], ...]  # Edit.to_dict() of each edit of the set
    edit_hash: str
    text: str  # what the optimizer is shown as already tried ("" when it quoted the judges)
    skill_hash: str | None = None  # the skill the edits were made to, when the run knows it
    evidence: dict[str, Any] | None = None  # a rejection's gate evidence
    verdict: str | None = None  # a user's verdict ("user rejected")
    # a pending edit's comparison: from_hash, to_hash, val_digest, judges_digest, cut_by,
    # alpha, runs, stream_at, evidence, scores (what the next run needs to go on with it,
    # and to tell whether it still may: trainer.resume)
    comparison: dict[str, Any] = field(default_factory=dict)

    def tried(self) -> dict[str, Any]:
        """What was tried, where and why, without the ledger's status and text: a run's
        rejected list (the report's) holds these."""
        out: dict[str, Any] = {"where": self.where, "reason": self.reason,
                               "edits": list(self.edits), "edit_hash": self.edit_hash}  # fmt: skip
        if self.skill_hash is not None:
            out["skill_hash"] = self.skill_hash
        if self.evidence:
            out["evidence"] = self.evidence
        if self.verdict is not None:
            out["verdict"] = self.verdict
        return out | self.comparison

    @property
    def gate(self) -> dict[str, Any]:
        """The gate's evidence: a rejection's, or a pending comparison's so far."""
        return self.evidence or self.comparison.get("evidence") or {}

    @property
    def runs(self) -> tuple[str, ...]:
        """The runs whose samples a pending comparison holds."""
        return tuple(self.comparison.get("runs") or ())

    def listed(self) -> dict[str, Any]:
        """As a run's rejected list shows it: what was tried, where and why (a dropped
        pending edit with its status and text, without its raw scores)."""
        if self.status == REJECTED:
            return self.tried()
        return {k: v for k, v in self.to_dict().items() if k != "scores"}

    def to_dict(self) -> dict[str, Any]:
        """The record as the ledger stores it."""
        return self.tried() | {"status": self.status, "text": self.text}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LedgerRecord:
        """A stored record (today's shape: ``shapes.unstamped``). A pending record's gate
        evidence is part of its comparison, as ``RunState.hold`` puts it; keys a record
        does not name (an older release's) stay in the comparison, so it is written back
        whole."""
        status = str(data.get("status") or REJECTED)
        named = _NAMED if status != PENDING else _NAMED - {"evidence"}
        return cls(
            status=status,
            where=str(data.get("where") or ""),
            reason=str(data.get("reason") or ""),
            edits=tuple(dict(e) for e in data.get("edits") or ()),
            edit_hash=str(data["edit_hash"]),
            text=str(data.get("text") or ""),
            skill_hash=data.get("skill_hash"),
            evidence=data.get("evidence") if "evidence" in named else None,
            verdict=data.get("verdict"),
            comparison={k: v for k, v in data.items() if k not in named},
        )


_NAMED = frozenset(
    {"status", "where", "reason", "edits", "edit_hash", "text", "skill_hash", "evidence",
     "verdict"}
)  # fmt: skip
