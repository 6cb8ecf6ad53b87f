"""Code conventions named by their remedy ("pathlib pls", "f-strings", "git switch") or by
their usual name ("comma joins", "untagged images", "select *") rule out the construct
they replace, where the two answers show it; a remedy refused ("no f-strings in log calls")
names no convention, and what the convention allows still passes."""

from __future__ import annotations

import pytest

from skillopt_sleep.mining.contrast import compile_pair, separates
from skillopt_sleep.mining.shapes import shape_topics
from trainer.checks import passes


def kept(said: str, corrected: str, accepted: str) -> list[tuple[str, str, str]]:
    return [
        (c.kind, c.value, c.scope)
        for c in compile_pair(said, corrected, accepted)
        if separates(c, corrected, accepted)
    ]


def fenced(code: str, lang: str = "") -> str:
    return f"```{lang}\n{code}\n```"


@pytest.mark.parametrize(
    ("said", "corrected", "accepted", "allowed", "ruled_out"),
    [
        ("f-strings", 'msg = "{} rows".format(n)', 'msg = f"{n} rows"',
         'log.info("%s rows", n)', 'msg = "%s rows" % n'),
        ("pathlib pls", "p = os.path.join(root, 'a')", "p = root / 'a'",
         "p = Path(__file__).parent", "os.path.exists(p)"),
        ("pathlib pls", "names = os.listdir(root)", "names = list(root.iterdir())",
         "os.environ['HOME']", "os.makedirs(out)"),
        ("pytest style, plain functions + assert", "class T(unittest.TestCase):\n    pass",
         "def test_a():\n    assert a()", "from unittest.mock import patch",
         "self.assertEqual(a, b)"),
        ("git switch. every time.", "git checkout -b fix", "git switch -c fix",
         "git switch main", "git checkout main"),
        ("template literals!!", "const s = 'Hi ' + name;", "const s = `Hi ${name}`;",
         "const n = a + b;", 'const s = name + " rows";'),
        ("=== everywhere", "if (a == b) {}", "if (a === b) {}", "if (a !== b) {}",
         "if (a != b) {}"),
        ("comma joins!! write the JOIN ... ON", "SELECT * FROM a, b WHERE a.id = b.id",
         "SELECT * FROM a JOIN b ON a.id = b.id", "SELECT x FROM a WHERE y IN (1, 2)",
         "select x from orders o, users u"),
        ("no select *", "SELECT * FROM users;", "SELECT id, name FROM users;",
         "SELECT count(*) FROM users;", "SELECT u.* FROM users u;"),
        ("pin the image tags", "FROM python:latest", "FROM python:3.12-slim",
         "FROM node:22-alpine AS build", "image: redis"),
        ("$() not backticks", "d=`date +%F`", "d=$(date +%F)", 'echo "$d"', "x=`pwd`"),
        ("24h clock.", "The window opens at 2pm.", "The window opens at 14:00.",
         "Run it for 24 hours.", "Back at 9 a.m."),
        ("absolute imports please", "from .retry import backoff",
         "from halyard.sync.retry import backoff", "import os", "from ..utils import x"),
        ("named exports pls", "export default { f }", "export const f = 1;",
         "export function g() {}", "export default g;"),
        ("no f-strings in log calls", 'log.info(f"{n} rows")', 'log.info("%s rows", n)',
         'msg = f"{n} rows"', 'logger.debug("{} rows".format(n))'),
        ("error strings start lowercase", 'return errors.New("Card expired")',
         'return errors.New("card expired")', 'return fmt.Errorf("parse TOML: %w", err)',
         'return errors.New("order not found.")'),
        ("never rm -rf in scripts", "rm -rf ./tmp", "find ./tmp -delete",
         "rm -f ./tmp/lock", "rm -fr ./build"),
        ("quote your vars", "cp $f $DEST/", 'cp "$f" "$DEST/"',
         'out="$(date)"; x=$y; echo \'$HOME\'', 'rm -r "$dir"/$name'),
        ("Go initialisms stay uppercase", "UserId string", "UserID string",
         "Identity string; HTTPClient", "func (c *HttpClient) GetJson()"),
        ("we're moving to inclusive terms, say denylist", "Requests from blacklisted IPs fail.",
         "Requests from denylisted IPs fail.", "The allowlist has 3 hosts; Blackwell is fine.",
         "Add it to the whitelist."),
        ("lowercase sql, keywords too", "SELECT id FROM jobs;", "select id from jobs;",
         "select id from jobs where status = 'FAILED';", "select id FROM jobs;"),
        ("no any. generics.", "function f(x: any) {}", "function f<T>(x: T) {}",
         "const anyOk = items.some(Boolean);", "const r = body as any;"),
        ("we use await everywhere", "return get(u).then(r => r.json());",
         "const r = await get(u);", "await run();", "p.then(done);"),
        ("set a timeout, it can stall forever", "r = requests.get(url)",
         "r = requests.get(url, timeout=10)", "s.mount('https://', adapter)\ntime.sleep(1)",
         "resp = http_client.post(url, json=body)"),
        ("no trailing commas please, strict parser", '{"a": 1,\n "b": [1, 2,],\n}',
         '{"a": 1,\n "b": [1, 2]\n}', '{"note": "x, ]", "c": [3, 4]}', '{"a": [1,\n]}'),
        ("add IF NOT EXISTS, this migration reruns", "CREATE TABLE jobs (id int);",
         "CREATE TABLE IF NOT EXISTS jobs (id int);",
         "CREATE INDEX CONCURRENTLY IF NOT EXISTS ix ON jobs (id);",
         "create unique index ix_a on jobs (a);"),
        ("use placeholders, that is injectable", 'db.execute(f"DELETE FROM t WHERE id = {i}")',
         'db.execute("DELETE FROM t WHERE id = ?", (i,))',
         'name = f"job {i}"\ndb.execute("SELECT 1 WHERE id = %(i)s", {"i": i})',
         "db.execute(\"UPDATE t SET a = 1 WHERE id = '\" + i + \"'\")"),
        ("google style docstrings please",
         'def f(a):\n    """Do.\n\n    Parameters\n    ----------\n    a : int\n    """',
         'def f(a):\n    """Do.\n\n    Args:\n        a: the count.\n    """',
         'def g():\n    """Returns the count of parameters."""',
         'def h(a):\n    """Do.\n\n    :param a: the count\n    """'),
        ("follow keep a changelog", "## 1.2.0\n- fix the retry\n- new flag",
         "## 1.2.0\n### Fixed\n- the retry\n### Added\n- a flag", "## 2.0.0\n### Removed\n- v1 api",
         "## 2.0.0\n- removed the v1 api"),
        ("no unwraps in the handler", "let n: u32 = s.parse().unwrap();",
         "let n: u32 = s.parse()?;", "let n = s.parse().unwrap_or_default();",
         'let f = File::open(p).expect("open");'),
        ("every curl in CI needs --fail", "curl -sS https://x.example.test/a.tgz -o a.tgz",
         "curl -fsS https://x.example.test/a.tgz -o a.tgz",
         "curl --fail-with-body https://x.example.test/h", "curl -F file=@a https://x.example.test"),
        ("always pass the namespace", "kubectl get pods", "kubectl -n billing get pods",
         "kubectl get pods --namespace billing", "kubectl rollout restart deploy/api"),
        ("ctx first please", "func Load(id string, ctx context.Context) error",
         "func Load(ctx context.Context, id string) error",
         "func (s *S) Get(ctx context.Context) error",
         "func (s *S) Put(key string, c context.Context) error"),
        ("wrap writes in a transaction", "UPDATE accounts SET frozen = true WHERE id = 7;",
         "BEGIN;\nUPDATE accounts SET frozen = true WHERE id = 7;\nCOMMIT;",
         "SELECT count(*) FROM accounts;", "DELETE FROM sessions WHERE expired;"),
        ("leave the commit hashes out", "- Faster export (3f9c2ab)", "- Faster export (#812)",
         "- Version 2026.12.1, build 20261207", "- Fix login a1b2c3d4"),
        ("single quotes in JS please", 'const a = "x";', "const a = 'x';",
         "const b = 'say \"hi\"'; const c = `t`;", 'log("done");'),
        ("pin the actions, never a branch", "- uses: acme/lint-action@main",
         "- uses: acme/lint-action@v3", "- uses: ./.github/actions/build\n- uses: a/b@v1.2.0",
         "- uses: acme/deploy-action"),
        ("never hardcode credentials, use the env", 'client = Client(api_key="demo-key-0000")',
         'client = Client(api_key=os.environ["ACME_KEY"])',
         'auth_url = "https://id.example.test/token"\nlogin(password=password)\n'
         "def f(token: str): ...\nDB_PASSWORD: ${DB_PASSWORD}\nTOKEN=<your-token>",
         "SMTP_PASSWORD: swordfish-9"),
        ("no mutable defaults", "def add(x, seen=[]):\n    seen.append(x)",
         "def add(x, seen=None):\n    seen = seen or []",
         "def f(opts=None, n=0):\n    cfg = {}\n    xs = []", "def g(cache={}):\n    pass"),
        ("no sleeps in the tests", "def test_a():\n    start()\n    time.sleep(2)",
         "def test_a():\n    start()\n    wait_until(ready)", "clock.advance(2)  # fake time",
         "await asyncio.sleep(0.5)"),
        ("build it concurrently, the table is live", "CREATE INDEX ix_a ON jobs (a);",
         "CREATE INDEX CONCURRENTLY ix_a ON jobs (a);",
         "-- a plain index would lock\nCREATE UNIQUE INDEX CONCURRENTLY ix_b ON jobs (b);",
         "create unique index ix_c on jobs (c);"),
        ("migrations must be reversible",
         "-- migrate:up\nALTER TABLE t ADD COLUMN c int;",
         "-- migrate:up\nALTER TABLE t ADD COLUMN c int;\n-- migrate:down\nALTER TABLE t DROP c;",
         "-- +goose Up\nCREATE TABLE k (id int);\n-- +goose Down\n-- undo\nDROP TABLE k;",
         "-- migrate:up\nALTER TABLE t ADD c int;\n-- migrate:down\n-- cannot undo"),
        ("write the downgrade, pass is not one",
         "def upgrade():\n    op.add_column('t', c)\n\ndef downgrade():\n    pass",
         "def upgrade():\n    op.add_column('t', c)\n\ndef downgrade():\n    op.drop_column(c)",
         "def downgrade():\n    # reverse it\n    op.drop_index('ix')",
         "def downgrade() -> None:\n    raise NotImplementedError"),
        ("Task-returning methods get the Async suffix", "public async Task Save(Order o) {}",
         "public async Task SaveAsync(Order o) {}",
         "static async Task Main(string[] a) {}\nasync Task<List<int>> IdsAsync() => new();",
         "public ValueTask<Dictionary<string, int>> Counts() => default;"),
        ("timezone-aware datetimes only", "t = datetime.utcnow()",
         "t = datetime.now(timezone.utc)", "t = datetime.now(tz=UTC)\nms = Date.now()",
         "d = datetime.datetime.today()"),
        ("log it through the logging module, stdout is lost", "print(f'{n} rows')",
         "log.info('%d rows', n)", "fingerprint(x)\nprinter.print_job(d)\nconsole.error('bad')",
         "System.out.println(x);"),
        ("const/let only please", "var total = 0;", "let total = 0;",
         "const variance = 2; let varName = 'var x';", "for (var i = 0; i < n; i++) {}"),
        ("no panics in library code", 'panic("bad config")', 'return errors.New("bad config")',
         "defer recoverPanic()", "if err != nil { panic(err) }"),
        ("no try! please", "let d = try! load()", "let d = try? load()",
         "do { let d = try load() } catch {}", "_ = try! parse(s)"),
        ("declare strict_types in every file", "<?php\nnamespace App;",
         "<?php\n\ndeclare(strict_types=1);\n\nnamespace App;",
         "<?php declare(strict_types=1);\necho 1;",
         "<?php\nnamespace B;\ndeclare(strict_types=1);"),
        ("clippy::unwrap_used is deny here", "let v = m.lock().unwrap();",
         "let v = m.lock().map_err(|_| E::Poisoned)?;", 'let v = x.expect("checked");',
         "Some(1).unwrap()"),
        ("google style docstrings, not epydoc", 'def f(a):\n    """Do.\n\n    @param a: n\n    """',
         'def f(a):\n    """Do.\n\n    Args:\n        a: n.\n    """', '"""Mail to @paramedics."""',
         'def g(b):\n    """Do.\n\n    @return: the sum\n    """'),
        ("don't run it as root", "FROM alpine:3.20\nCOPY app /app\nCMD [\"/app\"]",
         "FROM alpine:3.20\nCOPY app /app\nUSER 10001\nCMD [\"/app\"]",
         "FROM debian:12-slim\nUSER root\nRUN apt-get update\nUSER app",
         "FROM alpine:3.20\n# USER app\nCMD [\"/app\"]"),
        ("never turn off TLS verification, use our CA bundle",
         "r = requests.get(u, verify=False)", 'r = requests.get(u, verify="/etc/ca.pem")',
         "curl -fsS --cacert ca.pem https://x.test\nverify_signature(token)",
         "curl -sk https://x.test"),
        ("the frozen_string_literal magic comment goes first", "class A\nend",
         "# frozen_string_literal: true\n\nclass A\nend",
         "# frozen_string_literal: true\nputs 'frozen_string_literal: false'",
         "class B\n  # frozen_string_literal: true\nend"),
        ("example values are <placeholders>, never real ones",
         "DATABASE_URL=postgres://app:pw@db.test/app\nWORKERS=4",
         "DATABASE_URL=<database-url>\nWORKERS=<workers>",
         "API_KEY=\n# PORT=8080 is the default\nPORT=<port>", "export SENTRY_DSN=https://k@s.test/1"),
        ("every job needs timeout-minutes, not just the steps",
         "jobs:\n  test:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: make test",
         "jobs:\n  test:\n    runs-on: ubuntu-24.04\n    timeout-minutes: 15\n    steps:\n"
         "      - run: make test",
         "jobs:\n  a:\n    timeout-minutes: 5\n    runs-on: x\n  b:\n    runs-on: x\n"
         "    timeout-minutes: 9\n    steps:\n      - run: y",
         "jobs:\n  e2e:\n    runs-on: x\n    steps:\n      - run: y\n        timeout-minutes: 5"),
        ("regions come from a variable, never hardcoded",
         'provider "google" {\n  region = "europe-west4"\n}',
         'provider "google" {\n  region = var.region\n}',
         '# region = "us-east-1" was the old one\nvariable "region" {\n  default = "us-east-1"\n}',
         'module "db" {\n  region = "eu-west-1"\n}'),
        ("snake_case resource names, tflint checks it",
         'resource "aws_sqs_queue" "jobQueue" {\n  name = "job-queue"\n}',
         'resource "aws_sqs_queue" "job_queue" {\n  name = "job-queue"\n}',
         'output "queue_url" {\n  value = "https://Q-1.example.test"\n}',
         'variable "retry-limit" {}'),
        ("--context on every kubectl command", "kubectl apply -f app.yaml",
         "kubectl --context prod-eu apply -f app.yaml",
         "kubectl config get-contexts\nkubectl get pods --context prod-eu", "kubectl get pods -A"),
        ("that's not how go errors look", 'return errors.New("Quota exceeded.")',
         'return errors.New("quota exceeded")', 'log.Printf("Quota exceeded.")',
         'return fmt.Errorf("Bad input: %w", err)'),
        ("pin every action to a full commit sha", "- uses: acme/lint-action@v3",
         "- uses: acme/lint-action@0123456789abcdef0123456789abcdef01234567 # v3",
         "- uses: ./.github/actions/build\n- uses: docker://alpine:3.20",
         "- uses: acme/deploy-action@3f9a1c2"),
    ],
)  # fmt: skip
def test_a_convention_rules_out_the_construct_it_replaces(
    said: str, corrected: str, accepted: str, allowed: str, ruled_out: str
) -> None:
    got = kept(said, fenced(corrected), fenced(accepted))
    assert got, said
    for kind, value, scope in got:
        assert passes(kind, value, scope, fenced(allowed)), (said, value)
    assert any(not passes(k, v, s, fenced(ruled_out)) for k, v, s in got), said


def test_a_remedy_refused_names_no_convention() -> None:
    """ "no f-strings in log calls" asks for lazy formatting: it rules out no `.format(`;
    "24 hours later" names no clock; "no select *" is the rule, not a refused remedy."""
    assert not any(t.value == "f_string" for t in shape_topics("no f-strings in log calls"))
    assert not any(t.value == "clock_24h" for t in shape_topics("retry 24h later"))
    assert any(t.value == "select_star" for t in shape_topics("no select * please"))
    assert any(t.value == "select_star" for t in shape_topics("no select star"))
    assert any(t.value == "json_trailing_comma" for t in shape_topics("remove the trailing comma"))
    assert any(t.value == "lazy_logging" for t in shape_topics("no f-strings in log calls"))
    # "no backtick substitution": the construct named, so the negation is the rule
    for said in ("no backtick substitution in scripts", "no backticks for command substitution"):
        assert any(t.value == "command_substitution" for t in shape_topics(said)), said
    assert not any(t.value == "ts_any" for t in shape_topics("no any more retries please"))
    # a pair that switched from .format() to an f-string after "no f-strings" is no
    # evidence for the f-string convention: nothing rules .format() out
    got = kept("no f-strings in log calls", fenced('m = "{} rows".format(n)'), fenced('m = f"{n}"'))
    assert all(passes(k, v, s, fenced('m = "{} rows".format(n)')) for k, v, s in got)


def test_a_convention_the_pair_does_not_show_is_not_read() -> None:
    same = fenced("p = root / 'a'")
    assert kept("pathlib pls", same, fenced("p = root / 'b'")) == []


def test_a_negation_in_an_earlier_clause_refuses_no_convention() -> None:
    corrected = fenced('line = "%s: %d" % (name, n)', "python")
    accepted = fenced('line = f"{name}: {n}"', "python")
    checks = kept("not that, use f-strings", corrected, accepted)
    assert checks
    assert not all(passes(k, v, s, fenced('x = "{}".format(n)', "python")) for k, v, s in checks)


def test_pinned_images_leave_stages_and_scratch_and_read_a_registry_port() -> None:
    corrected = fenced("FROM rust:latest AS build\nRUN cargo build --release\nFROM debian")
    accepted = fenced("FROM rust:1.83 AS build\nRUN cargo build --release\nFROM debian:12-slim")
    got = kept("pin the base images please", corrected, accepted)
    assert got
    stages = fenced(
        "FROM rust:1.83 AS build\nFROM build AS lint\nFROM scratch\nCOPY --from=build /a /a\n"
        "FROM build"
    )
    assert all(passes(k, v, s, stages) for k, v, s in got)
    for unpinned in (
        "FROM ubuntu",
        "FROM rust:1.83 AS build\nFROM ghcr.io/acme/runtime",
        "FROM rust:1.83 AS build\nFROM debian:latest",
        "services:\n  api:\n    image: registry.internal.test:5000/acme/api",
        "FROM rust:1.83 AS build\nRUN cargo build\nFROM nginx\nCOPY --from=build /a /a",
    ):
        assert any(not passes(k, v, s, fenced(unpinned)) for k, v, s in got), unpinned
    assert all(passes(k, v, s, fenced("image: registry.internal.test:5000/acme/api:2.1.0"))
               for k, v, s in got)  # fmt: skip


@pytest.mark.parametrize(
    ("said", "corrected", "accepted", "ruled_out"),
    [
        ("the last call isn't using --fail", "curl -sS https://x.test/a", "curl -fsS https://x.test/a",
         "curl -s https://x.test/b"),
        ("without pathlib this breaks on windows", "p = os.path.join(a, b)", "p = Path(a) / b",
         "os.makedirs(out)"),
        ("did we not agree on git switch?", "git checkout -b fix", "git switch -c fix",
         "git checkout main"),
        ("FROM node with no tag? pin it", "FROM node\nRUN npm ci",
         "FROM node:22.11-alpine\nRUN npm ci", "FROM redis"),
        ("timeout= on every request, even with a session",
         "with requests.Session() as s:\n    r = s.get(u)",
         "with requests.Session() as s:\n    r = s.get(u, timeout=5)", "r = s.post(u, json=b)"),
        ("this call has no timeout", "r = requests.get(u)", "r = requests.get(u, timeout=5)",
         "requests.post(u, json=b)"),
    ],
)  # fmt: skip
def test_a_negation_that_says_what_is_missing_names_the_convention_wanted(
    said: str, corrected: str, accepted: str, ruled_out: str
) -> None:
    """ "isn't using --fail", "without pathlib", "did we not agree on …": the answer lacks the
    remedy, which is asked for; "don't use f-strings" still refuses one."""
    got = kept(said, fenced(corrected), fenced(accepted))
    assert got, said
    assert any(not passes(k, v, s, fenced(ruled_out)) for k, v, s in got), said
    assert not any(t.value == "f_string" for t in shape_topics("please don't use f-strings here"))
