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


def test_a_command_named_in_a_comment_is_not_run(tmp_path: Path) -> None:
    corrected = "```bash\ncurl -sS -o release.tgz https://dl.example.test/r.tgz\n```"
    accepted = "```bash\ncurl --fail -sS -o release.tgz https://dl.example.test/r.tgz\n```"
    checks = compiled(tmp_path, "add --fail to the curl", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```bash\n# a bare curl hides HTTP errors\ncurl -fsS https://x.test\n```")
    assert not holds(checks, "```bash\nset -e\ncurl -s https://x.test/health\n```")


def test_a_kubectl_command_about_the_client_or_cluster_takes_no_namespace(
    tmp_path: Path,
) -> None:
    corrected = "```bash\nkubectl delete pod api-0\n```"
    accepted = "```bash\nkubectl -n checkout delete pod api-0\n```"
    checks = compiled(tmp_path, "pass the namespace on every kubectl call", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    for obeys in ("kubectl config use-context prod", "kubectl version --client",
                  "kubectl get nodes -o wide", "kubectl get pods -n checkout"):  # fmt: skip
        assert holds(checks, f"```bash\n{obeys}\n```"), obeys
    assert not holds(checks, "```bash\nkubectl get nodes\nkubectl logs api-0\n```")


def test_a_flag_named_only_inside_a_force_push_is_the_force_push(tmp_path: Path) -> None:
    corrected = "```bash\ngit rebase -i HEAD~2\ngit push -f origin feature/tax\n```"
    accepted = "```bash\ngit rebase -i HEAD~2\ngit push --force-with-lease origin feature/tax\n```"
    said = "-f wipes out whatever the others pushed since. --force-with-lease instead."
    checks = compiled(tmp_path, said, corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```bash\nrm -f dist/*.whl\ngit fetch -f origin\n```")
    assert not holds(checks, "Then `git push -f` the branch.")


def test_a_time_zone_passed_in_code_is_no_zone_to_write(tmp_path: Path) -> None:
    corrected = "```python\nstamp = datetime.utcnow()\n```"
    accepted = "```python\nstamp = datetime.now(UTC)\n```"
    checks = compiled(tmp_path, "utcnow() -> now(UTC), it is deprecated", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```python\nstamp = datetime.now(timezone.utc)\n```")
    assert not holds(checks, "```python\nt0 = dt.datetime.utcnow()\n```")


def test_a_bare_fence_on_the_last_line_opens_no_untagged_block(tmp_path: Path) -> None:
    corrected = "```\nmake lint\n```"
    accepted = "```bash\nmake lint\n```"
    checks = compiled(tmp_path, "tag the fence with its language", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```bash\nmake\n```\nthen ```diff\n-a\n+b\n```")
    assert not holds(checks, "```bash\nmake\n```\n\n```\nok\n```")


def test_a_command_forbidden_is_the_command_run_not_another_tools_subcommand(
    tmp_path: Path,
) -> None:
    corrected = "```bash\npip install ruff\n```"
    accepted = "```bash\nuv tool install ruff\n```"
    checks = compiled(tmp_path, "we're on uv now, not pip", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```bash\nuv pip compile requirements.in\npipx run black .\n```")
    assert not holds(checks, "```bash\nsudo pip install ruff\n```")
    assert not holds(checks, "```bash\ncat reqs.txt | xargs -n1 pip install\n```")


def test_a_convention_of_one_language_is_read_in_that_languages_blocks(tmp_path: Path) -> None:
    corrected = "```python\nprint('synced', n)\n```"
    accepted = "```python\nlogger.info('synced %d', n)\n```"
    checks = compiled(tmp_path, "use the module logger, stdout goes nowhere", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```python\nlog.debug('x')\n```\n```bash\npython -c 'print(1)'\n```")
    assert not holds(checks, "```py\nif verbose:\n    print(rows)\n```")


def test_a_library_the_team_gave_up_is_the_package_and_its_family(tmp_path: Path) -> None:
    corrected = "```js\nconst axios = require('axios')\nconst r = await axios.get(url)\n```"
    accepted = "```js\nconst r = await fetch(url)\n```"
    for said in (
        "we moved off axios last quarter, fetch does it",
        "We're dropping axios from the bundle. Native fetch please.",
        "why is axios back in the imports?",
    ):
        checks = compiled(tmp_path, said, corrected, accepted)
        assert checks and not holds(checks, corrected) and holds(checks, accepted), said
        assert holds(checks, "```js\n// axios was removed in 4.0\nconst axiosLike = fetch\n```")
        assert not holds(checks, "```js\nimport retry from 'axios-retry'\n```"), said
        assert not holds(checks, "```ts\nimport axios from 'axios'\n```"), said


def test_semi_colons_written_as_two_words_are_semicolons(tmp_path: Path) -> None:
    corrected = "```js\nconst a = 1;\nexport default a;\n```"
    accepted = "```js\nconst a = 1\nexport default a\n```"
    checks = compiled(tmp_path, "no semi colons", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```js\nfor (let i = 0; i < n; i++) run(i)\n```")
    assert not holds(checks, "```ts\nlet x = 2;\n```")
