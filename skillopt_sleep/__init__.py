"""skillopt-sleep: nightly consolidation of coding-agent skills."""

__version__ = "0.1.0"
