"""Read Claude Code and Codex session logs into SQLite, incrementally, redacted."""
