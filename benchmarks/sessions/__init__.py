"""Generated agent session logs with planted recurring task kinds, for the mining benchmark.

Each generator writes real Claude Code (and some Codex) JSONL logs under ``root`` as the
tools lay them out (``root/.claude/projects/…``, ``root/.codex/sessions/…``) and returns the
ground truth::

    truth = tuning.write(root, seed=0, n_sessions=300)
    truth["kinds"]     # {kind: {"skill": name or None}}
    truth["requests"]  # [{"session_id", "text", "kind" or None}], text as the log has it

* ``tuning`` — the corpus mining's fingerprint was tuned on.
* ``heldout`` — written apart from it, never used to choose anything.

Nothing here is real user data, and none of it ships in the ``skillopt_sleep`` package.
"""
