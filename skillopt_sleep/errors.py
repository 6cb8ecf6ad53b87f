"""Errors the CLI shows as one line, in a module that imports nothing.

``ConfigError`` is raised by ``config`` (and re-exported there); it lives here so the CLI
can catch it without importing the config loader (PyYAML and the defaults' rules) on
commands that never read a config, such as ``--help`` and ``--version``.
"""


class ConfigError(Exception):
    """A configuration problem the user must fix; the message is one plain line."""
