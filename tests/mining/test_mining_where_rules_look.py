"""A rule is read where what the user objected to lives: a form of prose outside code (an
apology, an emoji), a construct of code outside its comments and strings ("no var" is not
broken by ``// no var here``, "uppercase keywords" not by ``'select from where'``). Each
reading still separates the pair it came from; a near-miss that obeys passes it."""

from __future__ import annotations

from pathlib import Path

from tests.judge_helpers import compiler_for, holds
from trainer.answer_parts import bare_code

compiled = compiler_for("answer the question")


def test_an_apology_is_prose_not_a_file_named_after_one(tmp_path: Path) -> None:
    corrected = "Sorry about that! The cache key now includes the locale."
    accepted = "The cache key now includes the locale."
    checks = compiled(tmp_path, "stop saying sorry every time", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "Moved the template to `templates/apologies.html`; nothing else moved.")
    assert not holds(checks, "My apologies, the locale was missing from the key.")


def test_an_emoji_shortcode_in_inline_code_is_not_rendered(tmp_path: Path) -> None:
    corrected = "Deploy finished 🎉 and the smoke tests are green ✅"
    accepted = "Deploy finished and the smoke tests are green."
    checks = compiled(tmp_path, "lose the emojis please", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "Set `icon: :rocket:` in the bot's YAML to change its avatar.")
    assert not holds(checks, "Shipped :rocket: to staging.")
    assert not holds(checks, "Shipped to staging 🚀")


def test_bare_code_blanks_comments_and_strings_by_the_fences_language() -> None:
    sql = "```sql\nSELECT a FROM t WHERE b = 'from where' -- order by\n/* join */ LIMIT 1;\n```"
    assert bare_code(sql).split() == [
        "SELECT",
        "a",
        "FROM",
        "t",
        "WHERE",
        "b",
        "=",
        "''",
        "LIMIT",
        "1;",
    ]
    js = "```ts\n// let it be\nconst url = 'http://x.test//a'; const letter = 1;\n```"
    assert "let" not in bare_code(js).split() and "letter" in bare_code(js)
    # a shell block stays whole: its comments offer commands, its strings run them
    sh = '```bash\npipx install tool  # or: pip install tool\nssh h "sudo reboot"\n```'
    assert bare_code(sh) == sh.split("\n", 1)[1].rsplit("\n", 1)[0]
    # "#" opens a comment only where a comment can start: not a colour or an attribute
    py = "```python\ncolour = '#fff'  # the brand colour\n```"
    assert bare_code(py).split() == ["colour", "=", "''"]
    assert bare_code("no code here") == ""


def test_every_name_of_a_language_takes_its_comments() -> None:
    """The comment marks go with the language, whatever name a fence gives it."""
    for tag in ("cc", "cpp", "h"):
        assert bare_code(f"```{tag}\nint n; // var\n```").split() == ["int", "n;"]
    for tag in ("containerfile", "dockerfile", "docker"):
        assert bare_code(f"```{tag}\nFROM alpine  # latest\n```").split() == ["FROM", "alpine"]
    assert bare_code("```makefile\nall: build  # phony\n```").split() == ["all:", "build"]
    assert bare_code("```lua\nlocal x = 1 -- var\n```").split() == ["local", "x", "=", "1"]
    assert bare_code("```toml\nname = 'x'  # var\n```").split() == ["name", "=", "''"]


def test_a_forbidden_keyword_mentioned_in_a_comment_is_not_used(tmp_path: Path) -> None:
    corrected = "```js\nvar retries = 3;\nfor (var i = 0; i < retries; i++) attempt(i);\n```"
    accepted = "```js\nconst retries = 3;\nfor (let i = 0; i < retries; i++) attempt(i);\n```"
    checks = compiled(tmp_path, "we don't write var, ever", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```js\n// var is banned by eslint\nconst label = 'var';\n```")
    assert not holds(checks, "```js\nvar total = 0;\n```")


def test_a_rule_broken_in_a_comment_stays_a_rule_on_comments(tmp_path: Path) -> None:
    corrected = "```py\ndef load():\n    # TODO: retry on timeout\n    return fetch()\n```"
    accepted = "```py\ndef load():\n    return fetch(retries=3)\n```"
    checks = compiled(tmp_path, "no TODOs, just do it", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert all(c.scope != "code_bare" for c in checks)


def test_uppercase_sql_keywords_ignore_literals_and_comments(tmp_path: Path) -> None:
    corrected = "```sql\nselect name from users where active = true order by name;\n```"
    accepted = "```sql\nSELECT name FROM users WHERE active = true ORDER BY name;\n```"
    checks = compiled(tmp_path, "keywords in upper case please", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    obeys = "```sql\n-- select from the replica\nSELECT note FROM logs WHERE note = 'from';\n```"
    assert holds(checks, obeys)
    assert not holds(checks, "```sql\nSELECT id from users WHERE id = 1;\n```")


def test_a_pattern_that_reads_quotes_keeps_the_strings(tmp_path: Path) -> None:
    corrected = '```py\nmsg = "{} failed".format(job)\n```'
    accepted = '```py\nmsg = f"{job} failed"\n```'
    checks = compiled(tmp_path, "f-strings only", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert not holds(checks, '```py\nmsg = "%s failed" % job\n```')


def test_a_section_asked_for_is_any_heading_of_its_word(tmp_path: Path) -> None:
    corrected = "## Summary\nRetries the upload on 503.\n\n## Notes\nNo config change."
    accepted = "## Summary\nRetries the upload on 503.\n\n## Monitoring\nWatch the 5xx panel."
    checks = compiled(tmp_path, "where's the Monitoring section?", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "### What\nRetry on 503.\n\n### What to monitor\nThe 5xx panel.")
    assert not holds(checks, "Retries on 503.\nMonitored on the 5xx panel.")


def test_a_short_flag_asked_for_may_be_spelt_long(tmp_path: Path) -> None:
    corrected = "```bash\ncurl -sS https://api.example.test/v1/export -o export.json\n```"
    accepted = "```bash\ncurl -LsS https://api.example.test/v1/export -o export.json\n```"
    checks = compiled(tmp_path, "add -L, that endpoint redirects", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```bash\ncurl --location https://api.example.test/v1/export\n```")
    assert not holds(checks, "```bash\ncurl -sS https://api.example.test/v1/export\n```")
    assert not holds(checks, "```bash\ncurl --limit-rate 1M https://api.example.test/v1\n```")


def test_forbidden_alternatives_said_of_prose_are_not_read_in_code(tmp_path: Path) -> None:
    corrected = "Basically, the cache is simply a dict keyed by path."
    accepted = "The cache is a dict keyed by path."
    said = "no basically/simply in the docs"
    checks = compiled(tmp_path, said, corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "The cache is a dict.\n\n```python\n# simply a dict on purpose\n```")
    assert not holds(checks, "The cache is simply a dict.")


def test_a_symbol_read_from_the_pair_is_not_broken_in_a_comment(tmp_path: Path) -> None:
    # nothing the words compile holds, so the pair fallback forbids what the user wrote;
    # it too reads the code less its comments
    corrected = "```java\n@Component\nclass Mailer {\n    @Inject Smtp smtp;\n}\n```"
    accepted = "```java\n@Component\nclass Mailer {\n    private final Smtp smtp;\n}\n```"
    checks = compiled(tmp_path, "no @Inject fields here please", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```java\n/** Takes the Smtp in its constructor, no @Inject. */\n"
                         "class Mailer { Mailer(Smtp s) {} }\n```")  # fmt: skip
    assert not holds(checks, "```java\nclass Mailer {\n    @Inject Smtp smtp;\n}\n```")


def test_backticks_in_a_shell_comment_substitute_nothing(tmp_path: Path) -> None:
    corrected = "```sh\nREV=`git rev-parse HEAD`\necho $REV\n```"
    accepted = '```sh\nREV=$(git rev-parse HEAD)\necho "$REV"\n```'
    checks = compiled(tmp_path, "$() please, not backticks", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(
        checks, "```sh\n# `git describe` would add the tag\nREV=$(git rev-parse HEAD)\n```"
    )
    assert holds(checks, "```sh\nN=${#ARGS[@]}  # `N` counts them\n```")
    assert not holds(checks, "```sh\necho `date +%F`  # today\n```")


def test_snake_case_leaves_the_names_the_standard_library_calls(tmp_path: Path) -> None:
    corrected = "```python\ndef parseHeader(line):\n    return line.split(':', 1)\n```"
    accepted = "```python\ndef parse_header(line):\n    return line.split(':', 1)\n```"
    checks = compiled(tmp_path, "snake_case names in python", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    hooks = (
        "```python\nclass TestHeader(unittest.TestCase):\n    def setUp(self):\n        pass\n\n"
        "    def tearDownClass(cls):\n        pass\n\nclass Names(ast.NodeVisitor):\n"
        "    def visit_Name(self, node):\n        pass\n```"
    )
    assert holds(checks, hooks)
    assert not holds(checks, "```python\nclass T:\n    def setUpDatabase(self):\n        pass\n```")


def test_a_word_the_answer_wrote_only_as_a_heading_is_forbidden_there(tmp_path: Path) -> None:
    corrected = "## 2.3.0\n### Enhancements\n- export runs in parallel"
    accepted = "## 2.3.0\n### Changed\n- export runs in parallel"
    checks = compiled(tmp_path, 'not "Enhancements", use "Changed"', corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "### Changed\n- small enhancements to the export")
    assert not holds(checks, "## 2.3.1\n#### Enhancements\n- faster")
    # a word the answer wrote in a sentence too stays forbidden everywhere
    prose = "## 2.3.0\n### Enhancements\n- enhancements to export"
    everywhere = compiled(tmp_path, 'no "enhancements" anywhere', prose, accepted)
    assert not holds(everywhere, "### Changed\n- small enhancements to the export")


def test_a_bang_in_code_is_an_operator_not_an_exclamation(tmp_path: Path) -> None:
    corrected = "```kotlin\nval city = order.address!!.city\n```"
    accepted = "```kotlin\nval city = order.address?.city ?: return null\n```"
    checks = compiled(tmp_path, "no !! please", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(
        checks, "```kotlin\n// no !! here\nval c = requireNotNull(order.address).city\n```"
    )
    assert holds(
        checks, "Done! The city now falls back to null.\n\n```kotlin\nval c = a?.city\n```"
    )
    assert not holds(checks, '```kotlin\nval c = rows["id"]!!\n```')
    # an exclamation in the sentences is still one
    shouty = compiled(tmp_path, "no !!! please", "Deployed!!! All green!", "Deployed. All green.")
    assert not holds(shouty, "Done! All green.") and holds(shouty, "Done. All green.")


def test_my_bad_and_my_mistake_are_apologies(tmp_path: Path) -> None:
    corrected = "Sorry, I missed that. The flag is `-i`."
    accepted = "The flag is `-i`."
    checks = compiled(tmp_path, "no apologies, just the answer", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert not holds(checks, "My bad, the flag is `-i`.")
    assert not holds(checks, "My mistake - use `-i`.")
    assert holds(checks, "My mistake log shows the flag is `-i`; a bad default hid it.")
