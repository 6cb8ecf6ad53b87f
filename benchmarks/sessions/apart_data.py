"""The invented user of the apart generator: projects, skills, recurring kinds.

User "noor" works on five projects in different stacks. Nine recurring kinds of
work, five with a user skill (commit-scribe and pr-summary are neighbours).
"""

HOME = "/home/noor"

PROJECTS = {
    "ledgerline": {
        "cwd": HOME + "/code/ledgerline",
        "lang": "python",
        "branch": "main",
        "src": [
            "app/api/invoices.py",
            "app/models/invoice.py",
            "app/services/reconcile.py",
            "app/utils/dates.py",
            "app/api/payments.py",
            "app/core/settings.py",
        ],
        "tests": ["tests/test_invoices.py", "tests/test_reconcile.py", "tests/test_dates.py"],
        "funcs": [
            "parse_due_date",
            "reconcile_batch",
            "apply_credit_note",
            "round_minor_units",
            "list_overdue",
        ],
        "test_cmd": "pytest -q",
        "lint_cmd": "ruff check .",
        "manifest": "pyproject.toml",
        "ticket": "LED",
    },
    "tidepool-web": {
        "cwd": HOME + "/code/tidepool-web",
        "lang": "typescript",
        "branch": "main",
        "src": [
            "src/components/TideChart.tsx",
            "src/hooks/useStation.ts",
            "src/api/client.ts",
            "src/pages/StationPage.tsx",
            "src/utils/units.ts",
            "src/store/favorites.ts",
        ],
        "tests": [
            "src/utils/units.test.ts",
            "src/hooks/useStation.test.ts",
            "src/components/TideChart.test.tsx",
        ],
        "funcs": [
            "formatHeight",
            "useStation",
            "fetchPredictions",
            "toggleFavorite",
            "nextHighTide",
        ],
        "test_cmd": "npm test -- --run",
        "lint_cmd": "npm run lint",
        "manifest": "package.json",
        "ticket": "TP",
    },
    "gravel": {
        "cwd": HOME + "/code/gravel",
        "lang": "rust",
        "branch": "main",
        "src": [
            "src/main.rs",
            "src/cli.rs",
            "src/parse/mod.rs",
            "src/parse/gpx.rs",
            "src/render.rs",
            "src/stats.rs",
        ],
        "tests": ["tests/cli.rs", "tests/parse_gpx.rs"],
        "funcs": ["parse_track", "elevation_gain", "render_table", "split_segments", "haversine"],
        "test_cmd": "cargo test",
        "lint_cmd": "cargo clippy -- -D warnings",
        "manifest": "Cargo.toml",
        "ticket": "GR",
    },
    "beacon-agent": {
        "cwd": HOME + "/work/beacon-agent",
        "lang": "go",
        "branch": "main",
        "src": [
            "cmd/beacon/main.go",
            "internal/probe/http.go",
            "internal/probe/tcp.go",
            "internal/config/config.go",
            "internal/report/push.go",
        ],
        "tests": ["internal/probe/http_test.go", "internal/config/config_test.go"],
        "funcs": ["ProbeHTTP", "LoadConfig", "PushReport", "backoffDelay", "DialTCP"],
        "test_cmd": "go test ./...",
        "lint_cmd": "golangci-lint run",
        "manifest": "go.mod",
        "ticket": "OPS",
    },
    "quillboard": {
        "cwd": HOME + "/code/quillboard",
        "lang": "elixir",
        "branch": "main",
        "src": [
            "lib/quill/boards.ex",
            "lib/quill/cards.ex",
            "lib/quill_web/live/board_live.ex",
            "lib/quill/accounts.ex",
        ],
        "tests": ["test/quill/boards_test.exs", "test/quill/cards_test.exs"],
        "funcs": ["move_card", "archive_board", "list_cards", "invite_member"],
        "test_cmd": "mix test",
        "lint_cmd": "mix credo --strict",
        "manifest": "mix.exs",
        "ticket": "QB",
    },
}

SKILLS = {
    "commit-scribe": (
        "Write a commit message for the staged changes in Noor's conventional style. "
        "Use when asked for a commit message, to commit staged work, or to summarize a diff "
        "into a commit.",
        "1. Run `git diff --staged` (and `--stat`).\n2. Look at `git log --oneline` for the "
        "scope names in use.\n3. Subject: `type(scope): imperative summary`, max 72 chars.\n"
        "4. Body: why, wrapped at 72. Reference the ticket if the branch names one.\n",
    ),
    "pr-summary": (
        "Draft or update the pull request description for the current branch. Use when asked "
        "for a PR description, PR body, or to open a pull request.",
        "1. `git log --oneline main..HEAD` and `git diff main...HEAD --stat`.\n2. Sections: "
        "Summary, Changes, Testing, Risk.\n3. Create with `gh pr create --draft --body-file` "
        "or update with `gh pr edit`.\n",
    ),
    "alembic-migrate": (
        "Create, check and apply an Alembic migration for ledgerline. Use for schema changes, "
        "new columns, indexes, or renaming tables.",
        "1. `alembic current`.\n2. Edit the model, then `alembic revision --autogenerate -m`.\n"
        "3. Review the generated file in migrations/versions/.\n4. `alembic upgrade head`, "
        "then `alembic downgrade -1` and upgrade again to prove it reverses.\n",
    ),
    "dep-bump": (
        "Upgrade one dependency to a given version and prove nothing broke. Use when asked to "
        "bump, upgrade or update a package, crate or Go module.",
        "1. Check what is outdated.\n2. Upgrade only the named dependency.\n3. Build and run "
        "the test suite.\n4. Summarize breaking changes from the upstream changelog.\n",
    ),
    "cut-release": (
        "Cut a new gravel release: version bump, changelog section, tag. Use when asked to "
        "release, tag or ship a version of gravel.",
        "1. `git log --oneline <last-tag>..HEAD`.\n2. Bump `version` in Cargo.toml.\n"
        "3. Move Unreleased in CHANGELOG.md under the new version with today's date.\n"
        "4. `cargo publish --dry-run`, then `git tag -a vX.Y.Z`.\n",
    ),
}

NEIGHBOURS = {"commit-scribe": "pr-summary", "pr-summary": "commit-scribe"}

# kind_id -> spec.  share = fraction of ALL sessions whose first request is this kind.
# wordings use slots filled by apart_work.fill_slots.
KINDS = {
    "commit_msg": {
        "skill": "commit-scribe",
        "share": 0.11,
        "projects": {
            "ledgerline": 3,
            "tidepool-web": 3,
            "gravel": 2,
            "beacon-agent": 2,
            "quillboard": 1,
        },
        "wordings": [
            "write the commit message for what's staged",
            "commit msg for my staged changes",
            "can you commit this with a decent message",
            "summarize the staged diff into a commit, conventional style",
            "need a commit message, it's for {ticket}",
            "commit it",
            "what should I call this commit?",
            "staged stuff is ready -> commit please",
            "one-liner plus body for the git history",
            "wrap this up into a proper changeset note",
        ],
        "corrections": [
            "too long, keep the subject under 50 chars",
            "no, use scope {scope} not the file name",
            "just the subject line",
            "you forgot the ticket number",
            "imperative mood pls, not past tense",
            "don't actually commit, I only wanted the message",
        ],
    },
    "pr_desc": {
        "skill": "pr-summary",
        "share": 0.07,
        "projects": {"ledgerline": 2, "tidepool-web": 3, "beacon-agent": 2, "quillboard": 1},
        "wordings": [
            "write the PR description for this branch",
            "open a draft pull request for {ticket}",
            "pr body pls",
            "can you fill in the description on my PR",
            "what changed on this branch vs main? write it up for reviewers",
            "prep the pull request, reviewers are {reviewer}",
            "draft the PR text, include a testing section",
            "ready for review -- make the PR",
            "let the team know what this work does, on github",
        ],
        "corrections": [
            "the testing section is wrong, I ran the e2e suite too",
            "no, don't create it, just update the existing one",
            "shorter. reviewers won't read all that",
            "mention the {ticket} ticket in the title",
            "not a draft, mark it ready",
        ],
    },
    "migration": {
        "skill": "alembic-migrate",
        "share": 0.08,
        "projects": {"ledgerline": 1},
        "wordings": [
            "add a {column} column to {table} and generate the migration",
            "need an alembic migration for the new {column} field",
            "schema change: index {table}.{column}",
            "make a db migration so {table} gets {column}",
            "the {table} table is missing {column}, fix the schema",
            "autogenerate a revision for my model changes and apply it",
            "rename {table}.{column} to legacy_{column}, with a reversible migration",
            "alembic: new revision for {ticket}",
            "{table} needs a {column} -- update models and the upgrade script",
        ],
        "corrections": [
            "the downgrade is empty, write it",
            "no, it should be nullable",
            "I said index, not a unique constraint",
            "why did it drop the old column? undo that",
            "use server_default, not a python default",
        ],
    },
    "regression_test": {
        "skill": None,
        "share": 0.08,
        "projects": {"ledgerline": 3, "gravel": 2, "tidepool-web": 2, "quillboard": 1},
        "wordings": [
            "write a regression test for {ticket} ({bug}) before we fix it",
            "{func} breaks when {bug} - pin it with a failing test first",
            "reproduce {ticket} in a test",
            "can we get a test that catches the {bug} bug so it never comes back",
            "lock down this bug: {bug}. test first, then the fix",
            "failing case pls: {func} with {bug}",
            "guard against {ticket} regressing",
        ],
        "corrections": [
            "the test passes before the fix, so it doesn't catch anything",
            "put it in the existing test file, not a new one",
            "no, don't fix it yet, only the test",
            "use a parametrized case instead of copy paste",
        ],
    },
    "dep_bump": {
        "skill": "dep-bump",
        "share": 0.06,
        "projects": {"tidepool-web": 3, "gravel": 2, "beacon-agent": 2},
        "wordings": [
            "bump {pkg} to {ver}",
            "upgrade {pkg} pls, we're way behind",
            "update the {pkg} dependency and make sure tests pass",
            "dependabot flagged {pkg}, move us to {ver}",
            "can we get onto the latest {pkg}?",
            "{pkg} {ver} is out, take it",
            "security advisory on {pkg}: patch it",
        ],
        "corrections": [
            "only {pkg}, you updated other packages too",
            "not {ver}, the one before it",
            "the lockfile didn't change, redo it",
            "why did the build break? fix it",
        ],
    },
    "release_cut": {
        "skill": "cut-release",
        "share": 0.05,
        "projects": {"gravel": 1},
        "wordings": [
            "cut a release, {ver}",
            "ship gravel {ver}",
            "tag v{ver} and update the changelog",
            "time for a new version of gravel, it's a minor one",
            "prepare {ver}: bump, changelog, tag",
            "let's publish the next patch",
            "do the release dance for {ver}",
        ],
        "corrections": [
            "wrong date in the changelog",
            "it's a patch release, not minor",
            "don't push the tag yet",
            "you left the Unreleased header empty, keep it",
        ],
    },
    "helm_bump": {
        "skill": None,
        "share": 0.045,
        "projects": {"beacon-agent": 1},
        "wordings": [
            "roll {env} to image {tag}",
            "bump the beacon image tag in {env} values to {tag}",
            "deploy {tag} on {env}, just the values change",
            "point {env} at the new build {tag}",
            "update helm values for {env}: tag {tag}",
            "{env} should run {tag} now",
        ],
        "corrections": [
            "not {env}, the other environment",
            "also the sidecar tag, you missed it",
            "I said values only, revert the chart",
        ],
    },
    "i18n": {
        "skill": None,
        "share": 0.04,
        "projects": {"tidepool-web": 1},
        "wordings": [
            "add translations for the {key} string",
            "new copy needs de and fr: {key}",
            'localize "{phrase}"',
            "i18n keys for the {area} screen are missing",
            "the German and French versions of {key} pls",
            "translate the new {area} labels",
        ],
        "corrections": [
            "the german is too formal, use du",
            "you missed fr.json",
            "keep the key names camelCase",
        ],
    },
    "type_errors": {
        "skill": None,
        "share": 0.065,
        "projects": {"tidepool-web": 3, "ledgerline": 2},
        "wordings": [
            "fix the type errors in {file}",
            "tsc is red again, sort it out",
            "make the type checker happy",
            "mypy complains about {file}, clean it up",
            "get the typecheck passing pls",
            "squiggly red lines everywhere in {file}",
            "CI fails on types -- fix",
        ],
        "corrections": [
            "no `any` casts please, type it properly",
            "don't just add type: ignore",
            "there are still errors in {file}",
        ],
    },
}

ONE_OFF_SHARE = 0.40

GENERIC_CORRECTIONS = [
    "no, that's not what I meant",
    "that's wrong",
    "I said {thing}, not that",
    "hm why did you do that?",
    "nope",
    "redo it, shorter",
    "not quite - try again",
    "can you undo the last change and do it properly",
    "that's not it. again",
    "is that right? looks off to me",
    "you changed the wrong file",
    "no no, keep the original behaviour",
    "why is it like this? change it back",
    "stop adding extra stuff, just {thing}",
    "make it shorter",
    "that's too wordy",
    "wait, did you actually run it?",
    "is that the whole thing?",
    "it's missing the ticket",
    "not this file, the other one",
    "hmm, the tests still fail after that",
    "can you explain why you changed it like that",
]

THANKS = [
    "thanks!",
    "perfect, ty",
    "great thx",
    "lgtm",
    "nice, cheers",
    "thank you",
    "awesome",
    "ok good",
    "ty!",
    "works, thanks",
]

GREETINGS = [
    "hey, ",
    "hi! ",
    "morning. ",
    "yo ",
    "ok so ",
    "hello - ",
    "hey claude, ",
    "quick one: ",
]
SUFFIXES = [" pls", " please", " thx", " thanks", " ty", " :)", "!", " asap"]
SECOND_PREFIX = ["now ", "also ", "ok now ", "next: ", "and ", "one more thing: "]
