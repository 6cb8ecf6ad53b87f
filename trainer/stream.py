"""The incumbent's val sweeps: drawn once per incumbent, paired with every candidate compared
against it, and kept for the next run that starts from the same skill and val set.

Why sharing them is sound, and when a sweep may no longer be paired, is argued in the engine's
docstring; this module only holds the sweeps and the two marks that argument needs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trainer.gate import Evidence, rows_from_json, rows_to_json


@dataclass
class Stream:
    origin: str  # the run and epoch that began it: pending records' `stream_at` name it
    sweeps: list[list[float]] = field(default_factory=list)  # sweep → score per val task
    carried: int = 0  # sweeps kept from an earlier run
    # The first sweep a comparison may pair with from now on: the sweeps below it made a
    # candidate look promising enough to build on, so they are biased for its successors.
    floor: int = 0

    @classmethod
    def of_accepted(cls, evidence: Evidence, origin: str) -> Stream:
        """An accepted candidate's own samples become the new incumbent's first sweeps."""
        return cls(origin, [list(col) for col in zip(*evidence.candidate, strict=True)])

    def raise_floor(self, to: int) -> None:
        self.floor = max(self.floor, to)

    def record(self, run_id: str, *, beaten: bool = False) -> dict[str, Any]:
        """The ledger's form. `beaten`: a candidate was accepted over this skill in `run_id`,
        so its sweeps are conditioned on losing and must never be paired again."""
        return {
            "origin": self.origin,
            "sweeps": rows_to_json(self.sweeps),
            "floor": self.floor,
            "run_id": run_id,
            "beaten": run_id if beaten else None,
        }

    @classmethod
    def carried_from(cls, rec: dict[str, Any] | None, n_val: int, run_id: str) -> Stream | None:
        """The kept sweeps, unless a run other than `run_id` (a rerun after a kill) accepted
        an edit over the skill, or the val set's size changed."""
        if not rec or rec.get("beaten") not in (None, run_id):
            return None
        if any(len(sweep) != n_val for sweep in rec["sweeps"]):
            return None
        sweeps = rows_from_json(rec["sweeps"])
        return cls(str(rec["origin"]), sweeps, len(sweeps), int(rec.get("floor", 0)))
