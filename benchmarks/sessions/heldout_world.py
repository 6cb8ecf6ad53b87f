"""The held-out developer's world: projects, their files and names, and the user's skills.

One developer (``dana``) works on five repositories. The recurring kinds of work and the
one-off requests both draw their objects (modules, tables, tests, packages, versions) from
here, so kinds and one-offs talk about the same things.
"""

from __future__ import annotations

from dataclasses import dataclass

HOME = "/home/dana"


@dataclass(frozen=True)
class Project:
    name: str
    cwd: str
    package: str
    modules: tuple[str, ...]
    functions: tuple[str, ...]
    classes: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]  # (table, column) a migration may add
    tests: tuple[str, ...]  # pytest node ids
    deps: tuple[str, ...]
    features: tuple[str, ...]  # what a changelog entry is about
    bugs: tuple[str, ...]  # what a regression test pins down
    version: tuple[int, int, int]  # the current release
    branches: tuple[str, ...]
    db: bool  # has alembic migrations


PROJECTS: tuple[Project, ...] = (
    Project(
        name="ledgerly",
        cwd=f"{HOME}/src/ledgerly",
        package="ledgerly",
        modules=(
            "ledgerly/models/invoice.py",
            "ledgerly/models/customer.py",
            "ledgerly/api/payments.py",
            "ledgerly/services/fx_rates.py",
            "ledgerly/services/pdf_export.py",
            "ledgerly/tasks/reminders.py",
            "ledgerly/auth/sessions.py",
            "ledgerly/utils/money.py",
        ),
        functions=(
            "compute_totals",
            "apply_discount",
            "convert_currency",
            "render_invoice_pdf",
            "send_overdue_reminders",
            "parse_amount",
            "round_half_even",
            "next_invoice_number",
        ),
        classes=("Invoice", "Customer", "Payment", "RateCache"),
        columns=(
            ("invoices", "due_date"),
            ("invoices", "paid_at"),
            ("invoices", "discount_pct"),
            ("customers", "vat_number"),
            ("customers", "billing_email"),
            ("customers", "archived"),
            ("payments", "provider_ref"),
            ("payments", "settled_at"),
        ),
        tests=(
            "tests/test_invoices.py::test_totals_with_discount",
            "tests/test_reminders.py::test_overdue_sent_once",
            "tests/api/test_payments.py::test_webhook_idempotent",
            "tests/test_fx.py::test_cached_rate_expires",
            "tests/test_pdf.py::test_render_unicode_names",
        ),
        deps=(
            "flask",
            "sqlalchemy",
            "alembic",
            "pydantic",
            "weasyprint",
            "celery",
            "httpx",
            "babel",
        ),
        features=(
            "overdue reminder emails",
            "partial payments",
            "VAT number validation",
            "PDF export fonts",
            "multi-currency totals",
            "invoice numbering per year",
        ),
        bugs=(
            "totals off by one cent with three line items",
            "reminders sent twice after a worker restart",
            "discount applied after tax",
            "comma decimals parsed as thousands",
            "PDF export crashing on emoji in customer names",
        ),
        version=(2, 7, 3),
        branches=("main", "feature/partial-payments", "fix/reminder-dupes", "chore/deps"),
        db=True,
    ),
    Project(
        name="tidepool",
        cwd=f"{HOME}/src/tidepool",
        package="tidepool",
        modules=(
            "tidepool/routes/stations.py",
            "tidepool/ingest/buoy_feed.py",
            "tidepool/db/models.py",
            "tidepool/alerts/thresholds.py",
            "tidepool/export/csv_writer.py",
            "tidepool/core/settings.py",
        ),
        functions=(
            "parse_buoy_frame",
            "interpolate_gaps",
            "check_thresholds",
            "station_summary",
            "write_csv_chunk",
            "load_settings",
        ),
        classes=("Station", "Reading", "Alert", "FeedClient"),
        columns=(
            ("stations", "elevation_m"),
            ("stations", "decommissioned_at"),
            ("readings", "quality_flag"),
            ("readings", "source_id"),
            ("alerts", "acknowledged_by"),
            ("alerts", "muted_until"),
        ),
        tests=(
            "tests/test_ingest.py::test_gap_interpolation",
            "tests/test_alerts.py::test_threshold_hysteresis",
            "tests/routes/test_stations.py::test_list_paginates",
            "tests/test_export.py::test_csv_header_order",
        ),
        deps=(
            "fastapi",
            "uvicorn",
            "sqlalchemy",
            "alembic",
            "pydantic",
            "numpy",
            "httpx",
            "orjson",
        ),
        features=(
            "station decommissioning",
            "alert muting",
            "CSV export of readings",
            "quality flags on readings",
            "buoy feed retries",
        ),
        bugs=(
            "gap interpolation wrong across midnight",
            "alerts firing again after an ack",
            "CSV export dropping the last chunk",
            "page 2 of the stations list repeating a row",
        ),
        version=(1, 12, 0),
        branches=("main", "feat/alert-muting", "fix/csv-tail", "spike/timescale"),
        db=True,
    ),
    Project(
        name="quill",
        cwd=f"{HOME}/src/quill",
        package="quill",
        modules=(
            "quill/cli.py",
            "quill/render.py",
            "quill/config.py",
            "quill/templates.py",
            "quill/plugins/loader.py",
            "quill/io/frontmatter.py",
        ),
        functions=(
            "render_page",
            "load_config",
            "parse_frontmatter",
            "discover_plugins",
            "slugify_title",
            "watch_dir",
        ),
        classes=("Site", "Page", "PluginSpec", "Theme"),
        columns=(),
        tests=(
            "tests/test_render.py::test_nested_lists",
            "tests/test_frontmatter.py::test_bom_prefix",
            "tests/test_watch.py::test_debounce",
            "tests/test_cli.py::test_build_exit_code",
        ),
        deps=("click", "jinja2", "markdown-it-py", "watchdog", "pyyaml", "rich"),
        features=(
            "--watch mode",
            "plugin entry points",
            "TOML front matter",
            "dark theme",
            "incremental builds",
        ),
        bugs=(
            "front matter with a BOM being ignored",
            "nested lists rendering flat",
            "watch mode rebuilding twice per save",
            "build exiting 0 on template errors",
        ),
        version=(0, 9, 4),
        branches=("main", "feat/toml-frontmatter", "fix/watch-debounce"),
        db=False,
    ),
    Project(
        name="fastslug",
        cwd=f"{HOME}/oss/fastslug",
        package="fastslug",
        modules=(
            "fastslug/__init__.py",
            "fastslug/core.py",
            "fastslug/translit.py",
            "fastslug/_cache.py",
        ),
        functions=("slugify", "transliterate", "strip_accents", "truncate_words"),
        classes=("SlugOptions", "LRU"),
        columns=(),
        tests=(
            "tests/test_core.py::test_max_length_word_boundary",
            "tests/test_translit.py::test_cyrillic",
            "tests/test_cache.py::test_lru_eviction",
        ),
        deps=("unidecode", "regex", "hypothesis", "pytest-benchmark"),
        features=(
            "max_length on word boundaries",
            "Cyrillic transliteration",
            "custom separators",
            "a faster cache",
        ),
        bugs=(
            "the last word dropped when max_length hits a space",
            "ß turned into ssss",
            "an empty string slugged to a lone dash",
        ),
        version=(3, 1, 0),
        branches=("main", "perf/cache", "fix/max-length"),
        db=False,
    ),
    Project(
        name="notes-site",
        cwd=f"{HOME}/notes-site",
        package="notes",
        modules=("mkdocs.yml", "docs/index.md", "docs/til/sqlite.md", "hooks/links.py"),
        functions=("rewrite_links", "on_page_markdown"),
        classes=("LinkRewriter",),
        columns=(),
        tests=(),
        deps=("mkdocs", "mkdocs-material"),
        features=(),
        bugs=(),
        version=(0, 0, 0),
        branches=("main",),
        db=False,
    ),
)

BY_NAME = {p.name: p for p in PROJECTS}

# The user's own skills (SKILL.md under ~/.claude/skills and ~/.codex/skills).
SKILL_BODIES: dict[str, str] = {
    "commit-msg": (
        "Write a commit message for the staged changes.\n\n1. Read `git diff --staged`.\n"
        "2. Subject: imperative, at most 50 characters, conventional-commit type prefix.\n"
        "3. Body only when the why is not obvious, wrapped at 72."
    ),
    "changelog": (
        "Add an entry to CHANGELOG.md under `## [Unreleased]`.\n\nUse the Keep a Changelog "
        "sections (Added, Changed, Fixed, Removed). One bullet per change, past tense, link "
        "the PR when there is one."
    ),
    "alembic-migrate": (
        "Create an Alembic revision.\n\n- `alembic revision --autogenerate -m <slug>`\n"
        "- Read the generated file and remove anything unrelated to the request.\n"
        "- Every upgrade has a working downgrade; run `alembic upgrade head` then "
        "`alembic downgrade -1` to check."
    ),
    "bump-deps": (
        "Upgrade one dependency.\n\n1. Check the available versions.\n2. Change the "
        "constraint in pyproject.toml.\n3. `uv lock --upgrade-package <name>` (only that "
        "package).\n4. Run the test suite; read the package's changelog for breaking changes."
    ),
    "release-notes": (
        "Draft user-facing release notes.\n\nCollect merged PRs since the previous tag, group "
        "them into Highlights, Fixes and Breaking changes, and write for users, not "
        "maintainers. Save to docs/releases/<version>.md."
    ),
}
SKILL_DESCRIPTIONS: dict[str, str] = {
    "commit-msg": "Commit messages for staged changes, in the repo's conventional style.",
    "changelog": "Adds Keep a Changelog entries to CHANGELOG.md.",
    "alembic-migrate": "Alembic revisions with checked upgrade and downgrade.",
    "bump-deps": "Upgrades a single Python dependency in pyproject.toml and the lock file.",
    "release-notes": "User-facing release notes from the merged PRs since the last tag.",
}


def skill_md(name: str) -> str:
    """The SKILL.md text of one of the user's skills."""
    return (
        f"---\nname: {name}\ndescription: {SKILL_DESCRIPTIONS[name]}\n---\n\n{SKILL_BODIES[name]}\n"
    )


def claude_skill_dir(name: str) -> str:
    return f"{HOME}/.claude/skills/{name}"


def codex_skill_path(name: str) -> str:
    return f"{HOME}/.codex/skills/{name}/SKILL.md"
