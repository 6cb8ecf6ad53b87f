"""The ``skillopt-sleep`` command line: a thin face over the library.

``root.py`` holds the ``main`` group; each command family lives in its own module and adds
its commands to ``main`` when imported here.
"""

from skillopt_sleep.cli import (
    daemon,
    ingest,
    install,
    night,
    promote,
    replay,
    report,
    setup,
    tasks,
)
from skillopt_sleep.cli.root import main

__all__ = [
    "daemon",
    "ingest",
    "install",
    "main",
    "night",
    "promote",
    "replay",
    "report",
    "setup",
    "tasks",
]
