"""A rule on what one language's code means by its marks is read in that language's blocks:
"no var" after a JavaScript answer is not broken by CSS's ``var(--gap)``, a 2-space indent
after a YAML manifest not by a Python block's 4, "no semicolons" after JavaScript not by Go's.
A rule written for any code (no TODO comments) stays on all of it, and a rule broken in an
untagged block keeps every block: its language is unknown."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.mining.grammar import Check
from skillopt_sleep.mining.narrow import to_languages
from tests.judge_helpers import compiler_for, holds
from trainer.checks import scope_known

compiled = compiler_for("write the snippet")


JS_VAR = "```js\nvar total = 0\nfor (const n of xs) total += n\n```"
JS_LET = "```js\nlet total = 0\nfor (const n of xs) total += n\n```"


def test_a_keyword_forbidden_in_javascript_is_not_css_s_function(tmp_path: Path) -> None:
    checks = compiled(tmp_path, "please no var in this codebase", JS_VAR, JS_LET)
    assert checks and not holds(checks, JS_VAR) and holds(checks, JS_LET)
    assert holds(checks, "```css\n.row { margin: var(--space-2); }\n```")
    assert not holds(checks, "```ts\nvar retries = 3\n```")  # TypeScript is JavaScript's
    assert not holds(checks, "```\nvar retries = 3\n```")  # an untagged block may be JS


def test_an_indent_width_asked_for_yaml_is_not_python_s(tmp_path: Path) -> None:
    corrected = "```yaml\nservice:\n    name: api\n    port: 8080\n```"
    accepted = "```yaml\nservice:\n  name: api\n  port: 8080\n```"
    checks = compiled(tmp_path, "indent the yaml with 2 spaces, not 4", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```python\ndef run():\n    return 1\n```")
    assert not holds(checks, "```yml\njobs:\n    test: {}\n```")


def test_a_rule_for_any_code_stays_on_every_block() -> None:
    todo = Check("not_regex", r"(?i)(?:#|//)\s*todo\b", "code")
    corrected = "```python\n# TODO: retry\nfetch()\n```"
    assert to_languages([todo], corrected, "```python\nfetch()\n```") == [todo]


def test_a_rule_broken_in_an_untagged_block_is_not_narrowed() -> None:
    var = Check("not_contains", "var", "code_bare")
    assert to_languages([var], "```\nvar a = 1\n```", "```\nlet a = 1\n```") == [var]


def test_a_language_scope_is_a_code_scope_with_languages() -> None:
    assert scope_known("code_bare@javascript") and scope_known("code@yaml,python")
    assert not scope_known("prose@python") and not scope_known("code@")


def test_a_module_an_import_names_is_code_a_comment_naming_it_is_not(tmp_path: Path) -> None:
    corrected = "```js\nconst uniq = require('underscore').uniq\nuniq(ids)\n```"
    accepted = "```js\nconst uniq = xs => [...new Set(xs)]\nuniq(ids)\n```"
    checks = compiled(tmp_path, "not underscore, plain array methods", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```js\n// was underscore.uniq before\nconst u = [...new Set(ids)]\n```")
    assert not holds(checks, "```js\nimport { uniq } from 'underscore'\n```")


def test_a_unit_forbidden_is_the_unit_after_a_number(tmp_path: Path) -> None:
    corrected = "```css\n.panel { margin: 24pt; }\n```"
    accepted = "```css\n.panel { margin: 2rem; }\n```"
    checks = compiled(tmp_path, "rem please, not pt", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "Swapped 24pt for 2rem.\n\n```css\n.panel { margin: 2rem; }\n```")
    assert not holds(checks, "```css\n.panel { border: 1pt solid; }\n```")
