"""One-off requests of the generated user: things asked once, each different, some close to
a recurring kind in words (a PR description, a flaky-test question) but not of it."""

from __future__ import annotations

from benchmarks.users.logs import Command

# (request, answer, commands the agent ran)
ONE_OFFS: tuple[tuple[str, str, tuple[Command, ...]], ...] = (
    (
        "what's the difference between `git restore` and `git checkout --` for a single file?",
        "None for a single file: both discard the working-tree changes. `git restore` is the "
        "newer, "
        "clearer command; `git checkout --` still works but also switches branches, which makes "
        "mistakes easier.",
        (),
    ),
    (
        "explain this error:\n```\nsqlalchemy.exc.InvalidRequestError: Object '<Refund at "
        "0x7f3a1c2e>' "
        "is already attached to session '3' (this is '5')\n```",
        "The Refund was loaded in one session and then added to another. Pass ids between sessions "
        "instead of objects, or call `session.merge(refund)` in the second one.",
        (),
    ),
    (
        "regex to pull our ticket keys (like LED-231) out of branch names",
        "`(?i)\\bled-(\\d+)\\b` and then upper-case the match: branch names are lower case, so "
        "`led-231-refund-fee` gives LED-231.",
        (),
    ),
    (
        "rename calc_total to compute_total everywhere in the repo",
        "Renamed in 6 files; the tests pass.",
        (
            Command(
                "rg -l '\\bcalc_total\\b'",
                "ledgerline/ledger/totals.py\nledgerline/api/routes.py\n"
                "ledgerline/exports/csv.py\ntests/test_totals.py\ntests/test_exports.py\ndocs/api.md",
            ),
            Command(
                "rg -l '\\bcalc_total\\b' | xargs sed -i 's/\\bcalc_total\\b/compute_total/g' "
                "&& pytest -q",
                "214 passed in 21.87s",
            ),
        ),
    ),
    (
        "write a PR description for the refund fee rounding branch, the fee now rounds half-up",
        "## Summary\nRefund fees round half-up with Decimal instead of float rounding, so a "
        "3.335 fee "
        "becomes 3.34.\n\n## Testing\n- `pytest tests/test_refunds.py`",
        (),
    ),
    (
        "draft a slack message asking the team to review the kestrel rollout plan by thursday",
        "Hi all, the Kestrel rollout plan is ready for review: it moves payouts first, then "
        "refunds, "
        "with a day of shadow writes in between. Please leave comments by Thursday.",
        (),
    ),
    (
        "how do I make pytest list the 10 slowest tests?",
        "`pytest --durations=10`. Add `--durations-min=0.5` to hide the fast ones.",
        (),
    ),
    (
        "what does SELECT ... FOR UPDATE SKIP LOCKED do?",
        "It locks the rows it returns and skips rows another transaction has already locked, so "
        "several workers can take jobs from one table without waiting on each other.",
        (),
    ),
    (
        "convert this curl to python requests:\n```\ncurl -X POST "
        "https://api.ledgerline.test/v1/refunds "
        '-H \'Content-Type: application/json\' -d \'{"payment": "pay_81", "amount": 500}\'\n```',
        '```python\nimport requests\n\nresp = requests.post(\n    "https://api.ledgerline.test/v1/refunds",\n'
        '    json={"payment": "pay_81", "amount": 500},\n)\nresp.raise_for_status()\n```',
        (),
    ),
    (
        "why does my compose healthcheck stay 'starting' forever?\n```yaml\nhealthcheck:\n"
        "  test: curl -f http://localhost:8000/health\n```",
        "The test is a plain string, so it runs without a shell, and the slim image has no "
        "curl. Use "
        '`["CMD-SHELL", "python -c \'import urllib.request; urllib.request.urlopen(\\"http://localhost:8000/health\\")\'"]`.',
        (),
    ),
    (
        "generate an .editorconfig for a repo with python and typescript",
        "```ini\nroot = true\n\n[*]\ncharset = utf-8\nend_of_line = lf\ninsert_final_newline "
        "= true\n\n"
        "[*.py]\nindent_style = space\nindent_size = 4\n\n[*.{ts,tsx,json}]\nindent_style = space\n"
        "indent_size = 2\n```",
        (),
    ),
    (
        "add a make target that runs ruff and mypy",
        "Added `make check`, which runs `ruff check .` and `mypy ledgerline`; both pass.",
        (
            Command(
                "make check",
                "ruff check .\nAll checks passed!\nmypy ledgerline\n"
                "Success: no issues found in 212 source files",
            ),
        ),
    ),
    (
        "how many lines of python are in ledgerline/ right now?",
        "About 18,400 lines across 212 files.",
        (Command("find ledgerline -name '*.py' | xargs wc -l | tail -1", "  18412 total"),),
    ),
    (
        "what's a good table name for storing refund attempts?",
        "`refund_attempts`: plural like the other tables, and it says each row is one try.",
        (),
    ),
    (
        "what does this cron expression mean: `*/10 8-18 * * 1-5`",
        "Every 10 minutes from 08:00 to 18:50, Monday to Friday.",
        (),
    ),
    (
        "German translation for this UI error: 'Refund amount exceeds the original payment.'",
        "„Der Erstattungsbetrag übersteigt die ursprüngliche Zahlung.“",
        (),
    ),
    (
        "is it safe to drop the legacy_ledger table? check for references first",
        "Not yet: two places still read it, the nightly reconcile job and one admin view.",
        (
            Command(
                "rg -n legacy_ledger --type py",
                "ledgerline/jobs/reconcile.py:14:    rows = db.execute(select(legacy_ledger))\n"
                "ledgerline/admin/views.py:88:        query = legacy_ledger.select()",
            ),
        ),
    ),
    (
        "jq filter to list the ids of pending refunds from this:\n```json\n"
        '[{"id": 1, "status": "pending"}, {"id": 2, "status": "done"}]\n```',
        "`jq '[.[] | select(.status == \"pending\") | .id]'` gives `[1]`.",
        (),
    ),
    ("how do I undo my last commit but keep the changes staged?", "`git reset --soft HEAD~1`.", ()),
    (
        "any bug in this?\n```python\ndef split_amount(total, n):\n    share = total // n\n"
        "    return [share] * n\n```",
        "It loses the remainder: split_amount(100, 3) gives [33, 33, 33], one cent short. Add the "
        "remainder to the first shares: `[share + (i < total % n) for i in range(n)]`.",
        (),
    ),
    (
        "systemd timer that runs the ledger reconcile every night at 2",
        "```ini\n# reconcile.timer\n[Timer]\nOnCalendar=*-*-* "
        "02:00:00\nPersistent=true\n\n[Install]\n"
        "WantedBy=timers.target\n```\nIt starts `reconcile.service`, which runs the job once.",
        (),
    ),
    (
        "the test_exports suite is flaky on my laptop only, any idea?",
        "It writes to /tmp/exports, which your other checkout also uses; two runs at once clobber "
        "each other's files. Use the `tmp_path` fixture instead.",
        (),
    ),
)
