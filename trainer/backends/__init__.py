"""Model backends: the OpenAI-compatible client, the embedded local server, and the simulation."""

from trainer.backends.base import ChatBackend, Completion, ContextOverflow, InfraError, Roles

__all__ = ["ChatBackend", "Completion", "ContextOverflow", "InfraError", "Roles"]
