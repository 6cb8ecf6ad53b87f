"""Code rules read where the user's rule lives: a rule on marks in the language the
corrected answer broke it in (``==`` is loose in JavaScript and plain in Python), a command
where it is run (not a comment that mentions it). Each reading still separates the pair it
came from; an answer that keeps the rule passes it, one that breaks it fails."""

from __future__ import annotations

from pathlib import Path

from tests.judge_helpers import compiler_for, holds

compiled = compiler_for("fix the snippet")


def test_loose_equality_is_a_javascript_rule_not_a_python_one(tmp_path: Path) -> None:
    corrected = "```ts\nif (user.role == 'admin') grant(user);\n```"
    accepted = "```ts\nif (user.role === 'admin') grant(user);\n```"
    checks = compiled(tmp_path, "triple equals please, eqeqeq is on", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```python\nif role == 'admin':\n    grant()\n```\n```js\na === b\n```")
    assert not holds(checks, "```javascript\nif (count != 0) flush();\n```")


def test_backtick_substitution_is_a_shell_rule_not_a_template_literal(tmp_path: Path) -> None:
    corrected = "```bash\ncp app.log app-`hostname`.log\n```"
    accepted = '```bash\ncp app.log "app-$(hostname).log"\n```'
    checks = compiled(tmp_path, "use $(...) for command substitution", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, '```bash\necho "$(id -u)"\n```\n```ts\nconst s = `id ${n}`;\n```')
    assert not holds(checks, "```sh\ntar czf `date +%F`.tgz data\n```")
