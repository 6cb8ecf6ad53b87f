"""Replay in the real agent harness: config, routing and the one-task replay command.

`with_clis(config, roles, environ)` puts the agent CLIs where `models.<role>.backend`
says (the target as a `Routed` harness adapter with chat fallback; optimizer and judge as
tool-less CLI chats) and starts the embedded server they use offline. `routing(tasks,
kind)` is what the report says about which tasks ran where.
"""

from skillopt_sleep.replay.build import with_clis
from skillopt_sleep.replay.route import Routed, routing, where
from skillopt_sleep.replay.settings import cli_backend, cli_settings

__all__ = ["Routed", "cli_backend", "cli_settings", "routing", "where", "with_clis"]
