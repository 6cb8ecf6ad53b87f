"""Characteristic work of each recurring kind (with optional steps), and the redo."""

from benchmarks.sessions.apart_work import (
    bash,
    diff_stat,
    edit,
    fake_lines,
    git_status,
    grep,
    pick,
    read,
    text,
    write,
)

MODELS = {
    "invoices": "invoice",
    "payments": "payment",
    "customers": "customer",
    "credit_notes": "credit_note",
}
TYPES = ["fix", "feat", "refactor", "chore", "test"]


def _commit_msg(rng, s):
    typ = pick(rng, TYPES)
    subj = "{}({}): {}".format(typ, s["scope"], s["subject"])
    body = "Refs {}. {}".format(
        s["ticket"],
        pick(
            rng,
            [
                "The old path swallowed the error.",
                "Keeps behaviour, fewer branches.",
                "Needed before the next release.",
                "Found while reviewing logs.",
            ],
        ),
    )
    return subj, body


def commit_msg(rng, p, s, redo=False):
    st, subj_body = [], _commit_msg(rng, s)
    subj, body = subj_body
    stat, files = diff_stat(rng, p)
    if redo:
        if rng.random() < 0.5:
            st.append(bash("git diff --staged", f"diff --git a/{files[0]} b/{files[0]}"))
        st.append(
            bash(
                f'git commit --amend -m "{subj}" -m "{body}"',
                "[{} {:07x}] {}".format(p["branch"], rng.getrandbits(28), subj),
            )
        )
        return st, f"Amended:\n\n```\n{subj}\n\n{body}\n```"
    if rng.random() < 0.5:
        st.append(git_status(rng, p))
    if rng.random() < 0.85:
        st.append(bash("git diff --staged --stat", stat))
    if rng.random() < 0.9:
        st.append(
            bash(
                "git diff --staged",
                f"diff --git a/{files[0]} b/{files[0]}\n@@ -10,6 +10,9 @@\n+    if not value:\n+        return None",
            )
        )
    if rng.random() < 0.55:
        st.append(
            bash(
                "git log --oneline -n 10",
                "{:07x} {}({}): earlier change".format(
                    rng.getrandbits(28), pick(rng, TYPES), s["scope"]
                ),
            )
        )
    if rng.random() < 0.25:
        st.append(read(p["cwd"], files[0], rng, s["func"]))
    if rng.random() < 0.6:
        st.append(
            bash(
                f'git commit -m "{subj}" -m "{body}"',
                "[%s %07x] %s\n %d files changed"
                % (p["branch"], rng.getrandbits(28), subj, len(files)),
            )
        )
        return st, f"Committed:\n\n```\n{subj}\n\n{body}\n```"
    return st, f"Suggested message:\n\n```\n{subj}\n\n{body}\n```"


def pr_desc(rng, p, s, redo=False):
    st, cwd = [], p["cwd"]
    title = "{}: {}".format(s["ticket"], s["subject"])
    body = "## Summary\n{}\n\n## Changes\n- {}\n\n## Testing\n- `{}`\n\n## Risk\nLow.".format(
        s["subject"][0].upper() + s["subject"][1:],
        s["file"],
        p["test_cmd"],
    )
    if redo:
        st.append(write("", "tmp/pr-body.md", body))
        st.append(
            bash(
                "gh pr edit --body-file /tmp/pr-body.md",
                "https://github.com/noor/%s/pull/%d"
                % (p["cwd"].rsplit("/", 1)[-1], rng.randrange(40, 400)),
            )
        )
        return st, "Updated the PR description:\n\n" + body
    if rng.random() < 0.9:
        st.append(
            bash(
                "git log --oneline main..HEAD",
                "\n".join(
                    "{:07x} {}".format(rng.getrandbits(28), s["subject"])
                    for _ in range(rng.randrange(1, 5))
                ),
            )
        )
    if rng.random() < 0.85:
        st.append(bash("git diff main...HEAD --stat", diff_stat(rng, p, "main")[0]))
    if rng.random() < 0.4:
        st.append(read(cwd, ".github/pull_request_template.md", rng))
    if rng.random() < 0.4:
        st.append(
            bash("gh pr view --json number,title,body", "no pull requests found for branch", 1)
        )
    if rng.random() < 0.6:
        st.append(write("", "tmp/pr-body.md", body))
        url = "https://github.com/noor/%s/pull/%d" % (
            cwd.rsplit("/", 1)[-1],
            rng.randrange(40, 400),
        )
        if rng.random() < 0.7:
            st.append(
                bash(f'gh pr create --draft --title "{title}" --body-file /tmp/pr-body.md', url)
            )
        else:
            st.append(bash("gh pr edit --body-file /tmp/pr-body.md", url))
        return st, f"Done: {url}\n\n{body}"
    return st, f"**{title}**\n\n{body}"


def migration(rng, p, s, redo=False):
    st, cwd = [], p["cwd"]
    slug = "add_{}_to_{}".format(s["column"], s["table"])
    mig = "migrations/versions/{}_{}.py".format(s["rev"], slug)
    model = "app/models/{}.py".format(MODELS[s["table"]])
    if redo:
        st.append(
            edit(
                cwd,
                mig,
                "def downgrade():\n    pass",
                'def downgrade():\n    op.drop_column("{}", "{}")'.format(s["table"], s["column"]),
            )
        )
        st.append(
            bash(
                "alembic downgrade -1 && alembic upgrade head",
                "INFO  [alembic.runtime.migration] Running upgrade -> {}".format(s["rev"]),
            )
        )
        return st, f"Fixed the migration `{mig}` and re-ran it both ways."
    if rng.random() < 0.7:
        st.append(bash("alembic current", "9c1e2f0a7b3d (head)"))
    if rng.random() < 0.8:
        st.append(read(cwd, model, rng, s["column"]))
    if rng.random() < 0.85:
        st.append(
            edit(
                cwd,
                model,
                "    id = Column(Integer, primary_key=True)",
                "    id = Column(Integer, primary_key=True)\n    {} = Column(DateTime, nullable=True)".format(
                    s["column"]
                ),
            )
        )
    st.append(
        bash(
            f'alembic revision --autogenerate -m "{slug}"',
            "INFO  [alembic.autogenerate.compare] Detected added column '{}.{}'\n  Generating {}/{} ...  done".format(
                s["table"], s["column"], cwd, mig
            ),
        )
    )
    if rng.random() < 0.6:
        st.append(read(cwd, mig, rng, "upgrade"))
    if rng.random() < 0.5:
        st.append(
            edit(
                cwd,
                mig,
                "    pass",
                '    op.create_index("ix_{}_{}", "{}", ["{}"])'.format(
                    s["table"], s["column"], s["table"], s["column"]
                ),
            )
        )
    if rng.random() < 0.9:
        st.append(
            bash(
                "alembic upgrade head",
                "INFO  [alembic.runtime.migration] Running upgrade 9c1e2f0a7b3d -> {}, {}".format(
                    s["rev"], slug
                ),
            )
        )
    if rng.random() < 0.5:
        st.append(
            bash(
                "alembic downgrade -1 && alembic upgrade head",
                "INFO  [alembic.runtime.migration] ok",
            )
        )
    if rng.random() < 0.4:
        st.append(bash("pytest tests/test_migrations.py -q", "3 passed in 1.92s"))
    return (
        st,
        "Added `{}.{}`; migration `{}` generated and applied (upgrade/downgrade both work).".format(
            s["table"], s["column"], mig
        ),
    )


def _targeted(p, s):
    lang, t, f = p["lang"], s["test"], s["func"]
    if lang == "python":
        return f"pytest {t} -k {f} -x"
    if lang == "typescript":
        return f'npx vitest run {t} -t "{f}"'
    if lang == "rust":
        return f"cargo test {f} -- --nocapture"
    return f"mix test {t} --only regression"


def regression_test(rng, p, s, redo=False):
    st, cwd, cmd = [], p["cwd"], _targeted(p, s)
    case = "test_{}_{}".format(s["func"], s["ticket"].lower().replace("-", "_"))
    if redo:
        head = {
            "python": "def %s():",
            "typescript": "it('%s', () => {",
            "rust": "fn %s() {",
            "elixir": 'test "%s" do',
        }[p["lang"]] % case
        st.append(edit(cwd, s["test"], head, head.replace(case, case + "_edge")))
        st.append(bash(cmd, "FAILED {}::{} - AssertionError".format(s["test"], case), 1))
        return st, "Reworked the test; it fails on the current code as it should."
    if rng.random() < 0.4:
        st.append(grep(cwd, s["func"], [s["file"], s["test"]]))
    if rng.random() < 0.9:
        st.append(read(cwd, s["file"], rng, s["func"]))
    if rng.random() < 0.5:
        st.append(read(cwd, s["test"], rng, s["func"]))
        st.append(
            edit(
                cwd, s["test"], "\n\n", "\n\n# regression: {} ({})\n".format(s["bug"], s["ticket"])
            )
        )
    else:
        st.append(write(cwd, s["test"], fake_lines(s["test"], case, rng)))
    st.append(bash(cmd, "1 failed: {} - reproduces {}".format(case, s["bug"]), 1))
    fixed = rng.random() < 0.7
    if fixed:
        st.append(edit(cwd, s["file"], "    if not value:", "    if value is None or value == []:"))
        st.append(bash(cmd, "1 passed"))
        if rng.random() < 0.4:
            st.append(bash(p["test_cmd"], "all passed"))
    return st, (
        "Added `{}`, which failed on {}; {}".format(
            case, s["bug"], "the fix makes it pass." if fixed else "left the fix for you."
        )
    )


def dep_bump(rng, p, s, redo=False):
    st, cwd, lang, pkg, ver = [], p["cwd"], p["lang"], s["pkg"], s["ver"]
    if lang == "typescript":
        install = bash(f"npm install {pkg}@{ver}", "changed 3 packages, audited 812 packages")
        test = bash("npm test -- --run", "Test Files  24 passed (24)")
        pre = [
            (0.7, bash("npm outdated", "{}  {}  {}".format(pkg, "older", ver))),
            (0.5, read(cwd, "package.json", rng)),
        ]
        post = [
            (0.6, bash("npm run build", "built in 4.1s")),
            (0.4, bash("git diff --stat package.json package-lock.json", " 2 files changed")),
        ]
    elif lang == "rust":
        install = bash(f"cargo update -p {pkg} --precise {ver}", f"Updating {pkg}")
        test = bash("cargo test", "test result: ok. 41 passed")
        pre = [
            (0.5, bash(f"cargo tree -i {pkg}", pkg)),
            (0.8, edit(cwd, "Cargo.toml", f'{pkg} = "', f'{pkg} = "{ver}')),
        ]
        post = [(0.6, bash("cargo build", "Finished dev profile"))]
    else:
        install = bash(f"go get {pkg}@v{ver}", f"go: upgraded {pkg} => v{ver}")
        test = bash("go test ./...", "ok  \tgithub.com/noor/beacon-agent/internal/probe\t0.41s")
        pre = [(0.7, bash(f"go list -m -u {pkg}", pkg))]
        post = [(0.8, bash("go mod tidy", ""))]
    if redo:
        return [install, test], f"Redone: only {pkg} moved to {ver}, tests green."
    for pr, step in pre:
        if rng.random() < pr:
            st.append(step)
    st.append(install)
    for pr, step in post:
        if rng.random() < pr:
            st.append(step)
    if rng.random() < 0.8:
        st.append(test)
    return st, f"Bumped {pkg} to {ver}. Build and tests pass; no breaking changes that affect us."


def release_cut(rng, p, s, redo=False):
    st, cwd, v, prev = [], p["cwd"], s["ver"], s["prev"]
    if redo:
        st.append(edit(cwd, "CHANGELOG.md", f"## [{v}]", f"## [{v}] - 2026-10-30"))
        st.append(bash(f'git tag -d v{v} && git tag -a v{v} -m "v{v}"', "Deleted tag"))
        return st, f"Fixed the changelog entry and re-tagged v{v} (not pushed)."
    if rng.random() < 0.7:
        st.append(bash("git describe --tags --abbrev=0", "v" + prev))
    st.append(
        bash(
            f"git log --oneline v{prev}..HEAD",
            f"{rng.getrandbits(28):07x} feat(cli): add --since\n{rng.getrandbits(28):07x} fix(parse): empty trkseg",
        )
    )
    if rng.random() < 0.8:
        st.append(read(cwd, "CHANGELOG.md", rng))
    st.append(edit(cwd, "Cargo.toml", f'version = "{prev}"', f'version = "{v}"'))
    st.append(edit(cwd, "CHANGELOG.md", "## [Unreleased]", f"## [Unreleased]\n\n## [{v}]"))
    if rng.random() < 0.4:
        st.append(bash("cargo build --release", "Finished release profile"))
    if rng.random() < 0.7:
        st.append(
            bash(
                "cargo publish --dry-run",
                f"Uploading gravel v{v}\nwarning: aborting upload due to dry run",
            )
        )
    if rng.random() < 0.6:
        st.append(
            bash(
                f'git commit -am "release: v{v}"',
                f"[main {rng.getrandbits(28):07x}] release: v{v}",
            )
        )
    if rng.random() < 0.75:
        st.append(bash(f'git tag -a v{v} -m "v{v}"', ""))
    return st, f"gravel v{v} is ready: version bumped, changelog moved, tag created locally."


def helm_bump(rng, p, s, redo=False):
    st, cwd, env, tag = [], p["cwd"], s["env"], s["tag"]
    vals = f"deploy/{env}/values.yaml"
    if redo:
        st.append(edit(cwd, vals, "  tag: v1.14.2", f"  tag: {tag}"))
        st.append(
            bash(f"helm lint charts/beacon -f {vals}", "1 chart(s) linted, 0 chart(s) failed")
        )
        return st, f"Updated `{vals}` again; lint is clean."
    if rng.random() < 0.9:
        st.append(read(cwd, vals, rng))
    st.append(edit(cwd, vals, "  tag: v1.14.2", f"  tag: {tag}"))
    if rng.random() < 0.7:
        st.append(
            bash(f"helm lint charts/beacon -f {vals}", "1 chart(s) linted, 0 chart(s) failed")
        )
    if rng.random() < 0.5:
        st.append(
            bash(
                f"helm template beacon charts/beacon -f {vals} | kubectl diff -n beacon -f -",
                f"-        image: ghcr.io/noor/beacon:v1.14.2\n+        image: ghcr.io/noor/beacon:{tag}",
                1,
            )
        )
    if rng.random() < 0.5:
        st.append(bash("git diff deploy/", f"-  tag: v1.14.2\n+  tag: {tag}"))
    return st, f"{env} now points at `{tag}` (only `{vals}` changed)."


def i18n(rng, p, s, redo=False):
    st, cwd, key = [], p["cwd"], s["key"]
    langs = ["en", "de", "fr"]
    if redo:
        st.append(edit(cwd, "src/locales/de.json", f'"{key}": "', f'"{key}": "'))
        st.append(edit(cwd, "src/locales/fr.json", f'"{key}": "', f'"{key}": "'))
        st.append(bash("npm run i18n:check", "3 locales, 0 missing keys"))
        return st, f"Adjusted the de/fr strings for `{key}`."
    if rng.random() < 0.6:
        st.append(grep(cwd, key, ["src/pages/StationPage.tsx"]))
    if rng.random() < 0.8:
        st.append(read(cwd, "src/locales/en.json", rng))
    for lang in langs:
        if lang == "en" or rng.random() < 0.9:
            st.append(
                edit(
                    cwd,
                    f"src/locales/{lang}.json",
                    '  "title": "Tidepool",',
                    '  "title": "Tidepool",\n  "{}": "{}",'.format(key, s["phrase"]),
                )
            )
    if rng.random() < 0.75:
        st.append(bash("npm run i18n:check", "3 locales, 0 missing keys"))
    return st, 'Added `{}` to en/de/fr ("{}").'.format(key, s["phrase"])


def type_errors(rng, p, s, redo=False):
    st, cwd, f = [], p["cwd"], s["file"]
    cmd = "npx tsc --noEmit" if p["lang"] == "typescript" else "mypy app/"
    err = (
        "%s(%d,7): error TS2345: Argument of type 'string | undefined' is not assignable"
        % (f, rng.randrange(5, 90))
        if p["lang"] == "typescript"
        else "%s:%d: error: Incompatible return value type" % (f, rng.randrange(5, 90))
    )
    ts = p["lang"] == "typescript"
    old, new = (
        ("  return parsed.data;", "  return parsed.data as Prediction[];")
        if ts
        else ("    return result", "    return Decimal(result)")
    )
    if redo:
        st.append(
            edit(cwd, f, "as any", ": Station | undefined")
            if ts
            else edit(cwd, f, "  # type: ignore", "")
        )
        st.append(bash(cmd, "Success: no issues found" if "mypy" in cmd else ""))
        return st, "Replaced the cast with a real type; checker is clean."
    st.append(bash(cmd, err + "\nFound %d errors" % rng.randrange(1, 9), 2 if "tsc" in cmd else 1))
    if rng.random() < 0.8:
        st.append(read(cwd, f, rng, s["func"]))
    st.append(edit(cwd, f, old, new))
    if rng.random() < 0.35:
        st.append(
            edit(cwd, f, "export function" if ts else "def ", "export function" if ts else "def ")
        )
    if rng.random() < 0.85:
        st.append(bash(cmd, "Success: no issues found" if "mypy" in cmd else ""))
    return st, f"Type errors in `{f}` fixed; `{cmd}` is clean."


STEPS = {
    "commit_msg": commit_msg,
    "pr_desc": pr_desc,
    "migration": migration,
    "regression_test": regression_test,
    "dep_bump": dep_bump,
    "release_cut": release_cut,
    "helm_bump": helm_bump,
    "i18n": i18n,
    "type_errors": type_errors,
}


def kind_steps(rng, kind, p, s, redo=False):
    return STEPS[kind](rng, p, s, redo)


ONE_OFF_ANSWERS = [
    "Done.",
    "Here's what I found.",
    "All set - summary below.",
    "Looked into it; details below.",
    "Finished, tests still pass.",
]


def oneoff_answer(rng, text_):
    return f"{pick(rng, ONE_OFF_ANSWERS)}\n\n({text_[:60]})"


__all__ = ["kind_steps", "oneoff_answer", "text"]
