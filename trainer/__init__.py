"""The validation-gated skill optimization loop. Knows nothing of sessions or SQLite."""
