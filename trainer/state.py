"""What a run has learned so far: accepted steps, rejected and pending edits, and the ledger
entries it will write when it ends.

Ledger entries are written only at the end of a run: a run killed midway and resumed with
the same cache then sees the same ledger and ends identically. Within the run, `known()`
answers for both the ledger of earlier nights and this run's entries, so nothing is
evaluated twice. Rejected and pending edits look the same to the optimizer ("already
tried"): the gate's level relies on the loop not telling them apart (see engine).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from trainer.cache import Ledger
from trainer.edits import Edit, edit_set_hash
from trainer.ledger import DROPPED, PENDING, REJECTED, LedgerRecord
from trainer.result import AcceptedEdits

FIREWALL = "judge firewall"
LENGTH_CAP = "length cap"


@dataclass
class RunState:
    ledger: Ledger
    history: list[AcceptedEdits] = field(default_factory=list)
    rejected: list[LedgerRecord] = field(default_factory=list)  # and dropped, this run
    entries: dict[str, LedgerRecord] = field(default_factory=dict)  # for the ledger
    forgotten: set[str] = field(default_factory=set)  # earlier pending records to drop

    def known(self, edit_hash: str) -> bool:
        in_ledger = edit_hash in self.ledger and edit_hash not in self.forgotten
        return in_ledger or edit_hash in self.entries

    def tried(self, limit: int = 8) -> list[str]:
        """Texts of rejected or pending edits for the optimizer: this run's first, then
        earlier nights'."""
        prior = [r.text for r in self.ledger.recent(5)]
        mine = [r.text for r in list(self.entries.values())[-5:]]
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
        # an edit that quoted the judges is never shown back to the optimizer
        text = "" if reason.startswith(FIREWALL) else _text(edits)
        rec = LedgerRecord(REJECTED, where, reason, tuple(e.to_dict() for e in edits),
                           edit_set_hash(edits), text, skill_hash, evidence)  # fmt: skip
        self.rejected.append(rec)
        if ledger:
            self.entries[rec.edit_hash] = rec

    def hold(self, edits: list[Edit], where: str, reason: str, detail: dict[str, Any]) -> None:
        """Keep an undecided edit (gate evidence so far, or a length cap) as pending;
        `detail` names the comparison (from_hash, to_hash, ...) and holds its evidence."""
        h = edit_set_hash(edits)
        self.entries[h] = LedgerRecord(
            PENDING,
            where,
            reason,
            tuple(e.to_dict() for e in edits),
            h,
            _text(edits),
            skill_hash=detail["from_hash"],
            comparison=dict(detail),
        )

    def forget(self, edit_hash: str) -> None:
        """Drop a pending record whose comparison no longer applies (or that was decided)."""
        self.forgotten.add(edit_hash)
        entry = self.entries.get(edit_hash)
        if entry is not None and entry.status == PENDING:
            del self.entries[edit_hash]

    def drop(self, record: LedgerRecord, reason: str) -> None:
        """Give up on an earlier pending edit without a verdict: reported, not banned."""
        self.rejected.append(replace(record, status=DROPPED, reason=reason))
        self.forget(record.edit_hash)

    def accept(self, step: AcceptedEdits) -> None:
        self.history.append(step)

    def pending(self) -> list[LedgerRecord]:
        return [e for e in self.entries.values() if e.status == PENDING]

    def flush(self, incumbent_hash: str) -> int:
        """Write this run's entries to the persistent ledger (at the end of the run).

        Pending edits measured against an incumbent that was replaced tonight are dropped
        (their evidence is about a comparison that no longer matters); returns how many."""
        stale = [
            h
            for h, e in self.entries.items()
            if e.status == PENDING and e.comparison["from_hash"] != incumbent_hash
        ]
        for h in stale:
            self.forget(h)
        for h in sorted(self.forgotten):
            if h not in self.entries:
                self.ledger.forget(h)
        for h, rec in self.entries.items():
            self.ledger.add(h, rec.to_dict())
        return len(stale)


def _text(edits: list[Edit]) -> str:
    return " | ".join(f"{e.kind}: {e.text or e.anchor}" for e in edits)
