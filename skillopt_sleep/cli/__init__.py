"""The ``skillopt-sleep`` command line: a thin face over the library.

``root.py`` holds the ``main`` group; it imports each command's module only when that
command is used, so ``--help``, ``--version`` and ``status`` start in a fraction of a second.
"""

from skillopt_sleep.cli.root import main

__all__ = ["main"]
