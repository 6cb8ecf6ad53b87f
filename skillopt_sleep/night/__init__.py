"""The night: ingest → mine → plan → train each skill → held-out test → promote → report.

``run.run_night(config)`` runs (or resumes) tonight's night under the state directory's
lock; ``dry_run=True`` computes the plan on a copy of the store (``dry.py``). The steps
hand typed objects to each other (``model.py``, re-exported here) and checkpoint them in
the store (``store.py``); ``summary.py`` turns them into the document every report renders.
This file imports only the model, so the store can register the night's tables cheaply.
"""

from skillopt_sleep.night.model import Job, NightOutcome, Plan, Promotion, Skip, TrainedSkill

__all__ = ["Job", "NightOutcome", "Plan", "Promotion", "Skip", "TrainedSkill"]
