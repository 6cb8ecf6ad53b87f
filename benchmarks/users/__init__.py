"""Generated users: session logs of people who ask for recurring kinds of work and correct
the agent in their own words, written as real Claude Code and Codex logs with the ground
truth of every turn.

* ``heldout`` — a user written apart from the people who tune mining and the correction
  compiler; never used to choose anything. Its figures are the ones that count.

Nothing here is real user data, and none of it ships in the ``skillopt_sleep`` package.
"""
