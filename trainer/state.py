"""What a run has learned so far: accepted steps, rejected edits, and the ledger entries it
will write when it ends.

Rejected edits are written to the persistent ledger only at the end of a run: a run killed
midway and resumed with the same cache then sees the same ledger and ends identically.
Within the run, `known()` answers for both the ledger of earlier nights and this run's
pending entries, so nothing is evaluated twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trainer.cache import Ledger
from trainer.edits import Edit, edit_set_hash

FIREWALL = "judge firewall"


@dataclass
class RunState:
    ledger: Ledger
    history: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)

    def known(self, edit_hash: str) -> bool:
        return edit_hash in self.ledger or edit_hash in self.pending

    def tried(self, limit: int = 8) -> list[str]:
        """Texts of rejected edits for the optimizer: this run's first, then earlier nights'."""
        prior = [r.get("text", "") for r in self.ledger.recent(5)]
        mine = [r["text"] for r in list(self.pending.values())[-5:]]
        return [t for t in mine[::-1] + prior if t][:limit]

    def reject(
        self,
        edits: list[Edit],
        reason: str,
        where: str,
        skill_hash: str,
        evidence: dict[str, Any] | None = None,
        ledger: bool = True,
    ) -> None:
        """Record a rejection; `ledger=False` for edits never judged on evidence (a bad
        anchor, a noisy train-minibatch screen): they may be proposed again."""
        rec: dict[str, Any] = {
            "where": where,
            "reason": reason,
            "edits": [e.to_dict() for e in edits],
            "edit_hash": edit_set_hash(edits),
            "skill_hash": skill_hash,
        }
        if evidence:
            rec["evidence"] = evidence
        self.rejected.append(rec)
        if ledger:
            # an edit that quoted the judges is never shown back to the optimizer
            text = (
                ""
                if reason.startswith(FIREWALL)
                else " | ".join(f"{e.kind}: {e.text or e.anchor}" for e in edits)
            )
            self.pending[rec["edit_hash"]] = {**rec, "text": text}

    def accept(self, step: dict[str, Any]) -> None:
        self.history.append(step)

    def flush(self) -> None:
        """Write this run's rejections to the persistent ledger (at the end of the run)."""
        for h, rec in self.pending.items():
            self.ledger.add(h, rec)
