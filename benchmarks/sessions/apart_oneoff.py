"""One-off request templates: project | text | actions.

Project `*` = any project ({file}, {func}, {test} filled from it). Actions:
ls st diff log readme test lint, read:P, edit:P, write:P, grep:PAT, glob:PAT, run:CMD
($src / $test = a file of the project).  Some deliberately share words with kinds.
"""

RAW = r"""
*|what's in this repo? give me the lay of the land|ls readme glob:**/*
*|explain what {func} does|grep:{func} read:$src
*|where is {func} called from|grep:{func}
*|add a test for {func} with an empty input|read:$src edit:$test test
*|run the tests and tell me what fails|test
*|why is the test suite so slow|test read:$test
*|is there any dead code in {file}?|read:{file} grep:def
*|rename {func} to something clearer|grep:{func} edit:$src test
*|add a docstring to {func}|read:$src edit:$src
*|what does the README say about setup|readme
*|fix the typo in the README install section|readme edit:README.md
*|show me the last few commits|log
*|what did I change since yesterday|st diff
*|is my working tree clean?|st
*|summarize the diff, don't commit anything|diff
*|how many lines of code is this project|run:git ls-files | xargs wc -l | tail -1
*|list the TODOs|grep:TODO
*|which files are biggest|run:du -sh * | sort -h | tail
*|read {file} and tell me if anything looks wrong|read:{file}
*|extract the magic numbers in {file} into constants|read:{file} edit:{file}
*|add logging around {func}|read:$src edit:$src
*|what does the lint config enforce|glob:*lint* lint
*|run the linter|lint
*|make {func} return early instead of nesting|read:$src edit:$src test
*|explain the folder structure|ls glob:**/*
*|who wrote {file} originally|run:git log --follow --format=%an -- {file} | tail -1
*|is there a test for {func}?|grep:{func} glob:**/*test*
*|add a comment explaining the tricky bit in {func}|read:$src edit:$src
*|draft a short paragraph for the README about contributing|readme edit:README.md
*|what branch am I on|run:git branch --show-current
*|stash my changes|st run:git stash push -m wip
*|restore the stash|run:git stash pop st
*|delete merged local branches|run:git branch --merged main
*|compare {file} with main|run:git diff main -- {file}
*|why does {func} take so long on big inputs|read:$src
*|split {file} in two, it's too long|read:{file} write:$src edit:{file} test
*|clean up unused imports|lint edit:$src
*|format the code|lint
*|what's the license of this project|glob:LICENSE* read:LICENSE
*|add a .editorconfig|write:.editorconfig
*|check the gitignore covers build output|read:.gitignore edit:.gitignore
*|does {file} have tests at all|glob:**/*test* grep:{func}
*|explain this error from CI: exit status 137|
*|what's a good name for a helper that retries with backoff|
*|convert the comments in {file} to proper doc comments|read:{file} edit:{file}
*|inline the helper in {file}, it's only used once|read:{file} edit:{file} test
*|make the error message in {func} more helpful|read:$src edit:$src
*|add a --verbose flag|read:$src edit:$src test
*|help me understand the test fixtures|read:$test
*|show git blame for the top of {file}|run:git blame -L 1,30 {file}
*|revert my uncommitted changes to {file}|st run:git checkout -- {file}
*|find where the config is loaded|grep:config
*|write a quick script to count records per day|write:scripts/count_per_day.py
*|list env vars the app reads|grep:getenv
*|tell me what the Makefile targets do|read:Makefile
*|add a make target for the tests|read:Makefile edit:Makefile
*|draw me an ascii diagram of how the modules talk|ls glob:**/*
*|is it safe to delete {file}?|grep:{func} read:{file}
*|cherry-pick the fix from the release branch|log run:git cherry-pick -x HEAD~1
*|what's the difference between the two test commands in the README|readme
*|any obvious security problems in {file}?|read:{file}
*|make {func} pure, no globals|read:$src edit:$src test
*|add type hints to {func}|read:$src edit:$src
*|the tests leave temp files behind, fix that|test read:$test edit:$test
*|shorten the line lengths in {file}|read:{file} edit:{file} lint
*|add an example to the README usage section|readme edit:README.md
*|give me a one-paragraph summary of this codebase for my manager|readme ls
*|rebase on main|st run:git fetch origin && git rebase origin/main
*|fix the merge conflict in {file}|st read:{file} edit:{file}
*|squash my last three commits|log run:git reset --soft HEAD~3
*|undo the last commit but keep the changes|log run:git reset --soft HEAD~1
*|is the CI config running the linter?|glob:.github/workflows/* read:.github/workflows/ci.yml
*|add caching to the CI workflow|read:.github/workflows/ci.yml edit:.github/workflows/ci.yml
*|what's the oldest file nobody touched in a year|run:git log --since=1.year --name-only --format= | sort -u | head
*|make the test output less noisy|test
*|add a test for the happy path of {func}|read:$src edit:$test test
*|write a test for the date parser edge case around DST|read:$src edit:$test test
*|describe the staged changes to me, no commit|run:git diff --staged --stat
*|which version are we on|read:{manifest}
*|mark {func} as deprecated|read:$src edit:$src
*|print the dependency tree|read:{manifest}
*|explain the test that's skipped|grep:skip read:$test
*|un-skip that test and see if it passes now|grep:skip edit:$test test
*|generate a .env.example from the code|grep:getenv write:.env.example
*|why does git say my branch diverged|st log
*|set up a pre-commit hook for the linter|write:.pre-commit-config.yaml
*|tell me about the error handling strategy here|grep:error read:$src
ledgerline|what does the reconcile service do end to end|read:app/services/reconcile.py
ledgerline|add pagination to the invoices endpoint|read:app/api/invoices.py edit:app/api/invoices.py test
ledgerline|why is settings.py reading the env twice|read:app/core/settings.py
ledgerline|add a health check route|read:app/api/invoices.py write:app/api/health.py test
ledgerline|what's our pytest config|read:pyproject.toml
ledgerline|run just the invoice tests|run:pytest tests/test_invoices.py -q
ledgerline|show me the last migration file, don't change anything|glob:migrations/versions/*.py read:migrations/versions/9c1e2f_add_payments.py
ledgerline|what does alembic downgrade do exactly? just explain|
ledgerline|make round_minor_units handle negative amounts|read:app/services/reconcile.py edit:app/services/reconcile.py test
ledgerline|start the dev server|run:uvicorn app.main:app --reload --port 8001
ledgerline|seed the local db with a few invoices|write:scripts/seed.py run:python scripts/seed.py
ledgerline|what python version do we need|read:pyproject.toml
ledgerline|add an openapi tag for payments|read:app/api/payments.py edit:app/api/payments.py
ledgerline|why are there two date helpers|read:app/utils/dates.py grep:def parse
tidepool-web|make the tide chart responsive|read:src/components/TideChart.tsx edit:src/components/TideChart.tsx
tidepool-web|start vite|run:npm run dev
tidepool-web|what does useStation cache?|read:src/hooks/useStation.ts
tidepool-web|the favorites star doesn't toggle on mobile|read:src/store/favorites.ts edit:src/store/favorites.ts
tidepool-web|add a loading skeleton to the station page|read:src/pages/StationPage.tsx edit:src/pages/StationPage.tsx
tidepool-web|how big is the production bundle|run:npm run build
tidepool-web|switch feet/meters toggle default to meters|read:src/utils/units.ts edit:src/utils/units.ts test
tidepool-web|which react version are we on|read:package.json
tidepool-web|add an aria-label to the chart|read:src/components/TideChart.tsx edit:src/components/TideChart.tsx
tidepool-web|show me the api client retry logic|read:src/api/client.ts
tidepool-web|what does vite.config do with the proxy|read:vite.config.ts
tidepool-web|dark mode colors for the chart please|read:src/components/TideChart.tsx edit:src/components/TideChart.tsx
tidepool-web|list the npm scripts|read:package.json
tidepool-web|write a storybook story for TideChart|write:src/components/TideChart.stories.tsx
gravel|add a --json output flag|read:src/cli.rs edit:src/cli.rs edit:src/render.rs run:cargo build
gravel|why is elevation_gain off on noisy tracks|read:src/stats.rs
gravel|run clippy|run:cargo clippy -- -D warnings
gravel|how do I run gravel on the sample file|readme run:cargo run -- samples/loop.gpx
gravel|make the table output align numbers right|read:src/render.rs edit:src/render.rs
gravel|explain the gpx parser|read:src/parse/gpx.rs
gravel|what's the MSRV|read:Cargo.toml
gravel|speed up haversine|read:src/stats.rs edit:src/stats.rs run:cargo bench
gravel|add a man page|write:doc/gravel.1
gravel|support .fit files? how hard would it be|read:src/parse/mod.rs
gravel|print timings in --verbose mode|read:src/main.rs edit:src/main.rs
gravel|what crates are we using|read:Cargo.toml
beacon-agent|what does the http probe actually check|read:internal/probe/http.go
beacon-agent|add a timeout option to the tcp probe|read:internal/probe/tcp.go edit:internal/probe/tcp.go run:go test ./internal/probe/...
beacon-agent|build the docker image locally|read:Dockerfile run:docker build -t beacon:dev .
beacon-agent|why is the binary 40MB|run:go build -o /tmp/beacon ./cmd/beacon && ls -lh /tmp/beacon
beacon-agent|explain backoffDelay|read:internal/report/push.go
beacon-agent|go vet everything|run:go vet ./...
beacon-agent|what does the chart template for the service look like|read:charts/beacon/templates/service.yaml
beacon-agent|add a readiness probe to the chart|read:charts/beacon/templates/deployment.yaml edit:charts/beacon/templates/deployment.yaml
beacon-agent|where does the config file path come from|read:internal/config/config.go
beacon-agent|what go version is this|read:go.mod
beacon-agent|show me the staging values file, no edits|read:deploy/staging/values.yaml
beacon-agent|how do I run a single probe locally|readme run:go run ./cmd/beacon --once
quillboard|start the phoenix server|run:mix phx.server
quillboard|what does move_card do with positions|read:lib/quill/cards.ex
quillboard|add a confirm dialog before archiving a board|read:lib/quill_web/live/board_live.ex edit:lib/quill_web/live/board_live.ex
quillboard|run credo|run:mix credo --strict
quillboard|explain the accounts context|read:lib/quill/accounts.ex
quillboard|which elixir version is this|read:mix.exs
quillboard|make the invite email mention the board name|read:lib/quill/accounts.ex edit:lib/quill/accounts.ex
quillboard|run just the boards tests|run:mix test test/quill/boards_test.exs
quillboard|format everything|run:mix format
quillboard|list the live views|glob:lib/quill_web/live/*.ex
*|hmm the build is broken after pulling, help|st test
*|what's the quickest way to profile {func}|read:$src
*|should {func} live in its own module?|read:$src
*|add input validation to {func}|read:$src edit:$src test
*|write a benchmark for {func}|read:$src write:$src
*|check if we vendor anything we shouldn't|ls glob:vendor/**
*|explain the git history of {file}|run:git log --oneline -- {file}
*|review my uncommitted changes like a strict reviewer|st diff
*|make the tests deterministic, they depend on the clock|read:$test edit:$test test
*|rename the test file to match the module|glob:**/*test* run:git mv {test} {test}
*|add a CODEOWNERS file|write:.github/CODEOWNERS
*|what would break if I upgrade the language version|read:{manifest}
*|find duplicate code in {file}|read:{file}
*|add a small usage example for {func} in its doc comment|read:$src edit:$src
*|create an issue template for bugs|write:.github/ISSUE_TEMPLATE/bug.md
*|walk me through how a request flows through the code|readme read:$src
*|the README badges are broken|readme edit:README.md
*|tidy the imports in {file}|read:{file} edit:{file}
*|spell-check the docs folder|glob:docs/**/*.md
*|write a haiku about this codebase|readme
*|turn the flaky sleep in the tests into a proper wait|grep:sleep edit:$test test
"""


_PREFIX = ("read:", "edit:", "write:", "grep:", "glob:", "run:")
_BARE = ("ls", "st", "diff", "log", "readme", "test", "lint")


def _actions(s):
    acts = []
    for tok in s.split():
        in_run = bool(acts) and acts[-1].startswith("run:")
        new = tok.startswith(_PREFIX) or (tok in _BARE and (not in_run or tok == "st"))
        if new or not acts:
            acts.append(tok)
        else:
            acts[-1] += " " + tok
    return acts


def load():
    out = []
    for line in RAW.strip().splitlines():
        proj, text, actions = line.split("|", 2)
        out.append((proj, text, _actions(actions)))
    return out


TEMPLATES = load()
