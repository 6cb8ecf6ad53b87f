"""Code conventions a correction names by their remedy or by their usual name, and the shape
in the code each one rules out: "f-strings" rule out ``.format(`` and ``"%s" %``,
"pathlib" rules out ``os.path.``, "pytest style" rules out ``unittest``, "git switch" rules
out ``git checkout``, "pin the image tag" rules out an untagged or ``:latest`` image, "%w"
rules out an error wrapped with ``%v`` (its chain lost), "non-root" a last ``USER root``,
"camelCase" a quoted ``"snake_case":`` key, "set -euo pipefail" a script without pipefail.

Users name the convention they want far more often than the construct they object to
("pathlib pls", "template literals!!", "24h clock."), so the construct is read from the
convention. Each is only ever forbidden (a remedy named under a negation, "no f-strings in
log calls", names no convention wanted and is not read), and like every shape it is kept
only where the corrected answer has the construct and the accepted one has not.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.phrases import Check

# A statement's word inside a string, and what builds a string from values after it.
_SQL = r"\b(?:select|insert|update|delete|where)\b"
_BUILT = r"(?:%\s*[\w(]|\+\s*\w|\.format\()"
# A name that holds a secret (``POSTGRES_PASSWORD``, ``apiKey``; not ``token_url``).
_SECRET_NAME = r"(?:password|passwd|secret|token|api[_-]?key|access[_-]?key)(?:_?(?:value|key))?"
_REGISTRY = r"(?:[\w.-]+:\d+/)?"  # an image's registry with its port
# A migration that cannot be undone: one with an up and no down (dbmate, goose, Alembic,
# Rails) or plain DDL with no down at all, or a down left empty (only comments, ``pass``,
# ``...``, ``raise NotImplementedError``).
_UNDONE = (
    r"(?s)\A(?!.*(?:migrate:down|\+goose Down|\bdef (?:downgrade|down)\b))"
    r"(?=.*(?:migrate:up|\+goose Up|\bdef (?:upgrade|up|change)\b|"
    r"(?i:\b(?:alter|create|drop)\s+(?:table|index|column)\b)))|"
    r"(?:migrate:down|\+goose Down)[ \t]*(?:\n[ \t]*(?:--[^\n]*)?)*?\s*"
    r"(?:\Z|--\s*(?:migrate:up|\+goose Up))|"
    r"\bdef (?:downgrade|down)\b[^:\n]*:[ \t]*\n(?:[ \t]*(?:#[^\n]*)?\n)*"
    r"[ \t]+(?:pass|\.\.\.|raise NotImplementedError\b)"
)
# name: (what users call it, the construct it rules out, read in code blocks first)
_CONVENTIONS: dict[str, tuple[str, str]] = {
    "f_string": (
        r"\bf-?strings?\b",
        r"\.format\s*\(|[\"'][^\"'\n]*%[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc][^\"'\n]*[\"']\s*%",
    ),
    "pathlib": (
        r"\bpathlib\b|\bPath\(__file__\)",
        r"\bos\.(?:path\.\w+|listdir|makedirs|mkdir|remove|unlink|rename|walk|getcwd|scandir)\b|"
        r"\bglob\.glob\(",
    ),
    "pytest": (
        r"\bpytest\b",
        r"\bimport\s+unittest\b|\bunittest\.(?!mock\b)\w+|\bself\.assert[A-Z]\w*\s*\(|\bTestCase\b",
    ),
    "async_await": (r"\basync\s*/\s*await\b|\bawait\b", r"\.then\s*\("),
    "strict_equality": (
        r"===|\bstrict (?:equality|comparison)\b|\beqeqeq\b",
        r"(?<![=!<>])[=!]=(?!=)",
    ),
    "template_literal": (
        r"\btemplate (?:literals?|strings?)\b|\bstring concatenation\b",
        r"[\"'`]\s*\+\s*[\w(]|[\w)]\s*\+\s*[\"'`]",
    ),
    "git_switch": (r"\bgit switch\b", r"\bgit\s+checkout\b"),
    "absolute_import": (
        r"\b(?:absolute|relative) imports?\b",
        r"(?m)^\s*from\s+\.+[\w.]*\s+import\b|\bimport\s+[\w{}\s,*]*from\s+['\"]\.\.?/",
    ),
    "named_export": (r"\b(?:named|default) exports?\b|\bexport default\b", r"\bexport\s+default\b"),
    "explicit_join": (
        r"\b(?:explicit|proper|ansi|inner) joins?\b|\bjoin\s+(?:\.\.\.\s+)?on\b|\bjoin syntax\b|"
        r"\b(?:comma|implicit) joins?\b",
        r"(?i)\bfrom\s+[\w.]+(?:\s+(?:as\s+)?(?!where\b|join\b)\w+)?\s*,\s*[\w.]+",
    ),
    "clock_24h": (
        r"\b24h\b(?! (?:later|ago|before|after|window|period))|"
        r"\b24[- ]hours?[- ](?:clock|time|format)\b|\bam\s*/\s*pm\b",
        r"(?i)\b\d{1,2}(?:[:.]\d{2})?\s?[ap]\.?m\b\.?",
    ),
    "command_substitution": (
        r"\$\(\s*\.*\s*\)|\$\(\w|\bcommand substitution\b|\bbackticks? (?:don'?t|do not) nest\b|"
        r"\bbacktic?k?s?(?: for)?(?: command)? substitution\b",
        r"(?m)^(?:[^#`\n]|(?<=\S)#)*`[^`\n]+`",  # not in a "# comment": nothing runs there
    ),
    "pinned_tag": (
        r"\bpin(?:ned)?(?: the| a| an| all| both| every| your)?(?: base)?(?: docker)?"
        r"(?: image)?(?: tags?| versions?| images?)\b|\buntagged\b|:latest\b|\bno latest\b|"
        r"\bpin it\b|\b(?:isn'?t|not|un)\s?pinned\b",
        # a later FROM of a bare name may name an earlier stage (FROM build AS test); scratch
        # is no image; a registry may have a port (registry.test:5000/team/app)
        rf"(?im)^\s*-?\s*image:\s*{_REGISTRY}[\w./-]+(?::latest)?\s*$|"
        rf"^[ \t]*FROM[ \t]+{_REGISTRY}(?:[\w./-]+:latest|[\w.-]*/[\w./-]*)"
        r"(?:[ \t]+AS[ \t]+\w+)?[ \t]*$|"
        r"\A(?:(?![ \t]*FROM[ \t])[^\n]*\n)*[ \t]*FROM[ \t]+(?!scratch\b)[\w.-]+"
        r"(?:[ \t]+AS[ \t]+\w+)?[ \t]*$|"
        # a later bare FROM that names no stage the file declares (FROM nginx after AS deps)
        r"\A(?=(?s:.*?)^[ \t]*FROM[ \t]+(?!scratch\b)(?P<bare>[\w.-]+)[ \t]*$)"
        r"(?!(?s:.*)\bAS[ \t]+(?P=bare)[ \t]*$)",
    ),
    "lazy_logging": (
        r"\blazy (?:%|formatting|logging|log)\w*|\bW1203\b|\bf-?str\w*\b.{0,30}\blog\w*|"
        r"\blog(?:ger|ging)?\b.{0,30}\bf-?str\w*|\bvalues as arguments\b",
        r"\b\w*log\w*\.(?:debug|info|warning|warn|error|exception|critical|log)\(\s*"
        r"(?:f[\"']|[\"'][^\"'\n]*[\"']\s*(?:%|\.format\())",
    ),
    "go_error_strings": (
        r"\berror (?:strings?|messages?)\b|\bST1005\b|\bgo errors?\b|\berrors\.New\(",
        r"\b(?:errors\.New|fmt\.Errorf)\(\s*\"(?:[A-Z][a-z]|[^\"\n]*[.!?]\")",
    ),
    "rm_recursive_force": (
        r"\brm -(?:rf|fr|Rf|fR|r -f)\b",
        r"\brm\b(?=[^\n;&|]*\s-[a-zA-Z]*[rR])(?=[^\n;&|]*\s-[a-zA-Z]*f)",
    ),
    "quoted_vars": (
        r"\bquote (?:your |the |all |every |each )?(?:shell )?(?:vars?|variables?|expansions?)\b|"
        r"\bunquoted (?:vars?|variables?|expansions?|\$\w+)|\bquote [\"'`]*\$\w+",
        r"(?m)^(?:[^\"'\n]|\"[^\"\n]*\"|'[^'\n]*')*?(?<![\w=\"])\$\{?[A-Za-z_]\w*",
    ),
    "initialisms": (
        r"\binitialisms?\b|\bacronyms?\b[^.]{0,30}\b(?:caps|upper\w*|capitals?)\b|"
        r"\b(?:caps|upper\w*)[^.]{0,20}\bacronyms?\b",
        r"(?:(?<=[a-z])|\b)(?:Id|Url|Uri|Api|Http|Json|Xml|Sql|Html|Uuid|Pdf|Tcp|Dns|Ip|Ssh|Tls|"
        r"Css|Io)(?![a-z])",
    ),
    "inclusive_terms": (
        r"\b(?:allow|deny|block)-?lists?\b|\binclusive (?:terms|language|wording|names)\b",
        r"(?i)\b(?:white|black)[- ]?list(?:s|ed|ing)?\b",
    ),
    "ts_any": (
        r"\bno `?any\b`?(?! (?:more|longer|other|of|way|need|one|time|idea|chance)\b)|"
        r"\bas any\b|`any`|\bany types?\b|\bexplicit any\b|\bno-?explicit-?any\b",
        r"(?::\s*any\b|\bas\s+any\b|<any>|\bany\[\])",
    ),
    "select_star": (
        r"\bselect\s*\*|\bstar selects?\b|\bselect star\b",
        r"(?i)\bselect\s+(?:distinct\s+)?(?:\w+\.)?\*|,\s*\w+\.\*",
    ),
    "go_wrap_w": (
        r"(?<![\w%])%w\b|\bwrap(?:ping)? (?:the |all |your )?errors?\b|\berrors\.(?:Is|As)\b",
        r"\bErrorf\(\s*\"[^\"\n]*%[vs][^\"%\n]*\"\s*,(?:[^()\n]|\([^()\n]*\))*\berr(?:\.Error\(\))?\s*\)",
    ),
    "non_root": (
        r"\b(?:run(?:s|ning)? )?as root\b|\bnon-?root\b|\bunprivileged user\b|\brootless\b",
        # the last USER root, or a Dockerfile with no USER at all (it runs as root)
        r"(?ms)^\s*USER\s+(?:root|0)(?::\S+)?\s*$(?!.*^\s*USER\s)|"
        r"\A(?=.*^[ \t]*FROM\s)(?!.*^[ \t]*USER\s)",
    ),
    "camel_case_keys": (r"\bcamel-?case\b", r"[\"'][a-z][a-z0-9]*(?:_[a-z0-9]+)+[\"']\s*:"),
    "strict_mode": (
        r"\bset -[a-zA-Z]*e[a-zA-Z]*o pipefail\b|\bstrict mode\b|\bpipefail\b",
        r"(?sm)\A(?=\s*#![^\n]*\b(?:ba|z)?sh\b)(?!.*^[^#\n]*\bpipefail\b)",  # "# set -e…": off
    ),
    "uppercase_sql": (
        r"\b(?:upper-?\s?case|caps|capitali[sz]ed|capitals?)\b[^.]{0,40}\b(?:sql|keywords)\b|"
        r"\b(?:sql|keywords)\b[^.]{0,40}\b(?:upper-?\s?case|in caps|capitals?|capitali[sz]ed)\b",
        r"(?<![\w'\"])(?:select|from|where|group by|order by|join|insert into|delete from|values|"
        r"having|limit)(?![\w'\"])",
    ),
    "lowercase_sql": (
        r"\blower-?\s?case\b[^.]{0,40}\b(?:sql|keywords)\b|\b(?:sql|keywords)\b[^.]{0,40}"
        r"\b(?:lower-?\s?case|small letters)\b|\bshouting the keywords\b",
        r"\b(?:SELECT|FROM|WHERE|UPDATE|INSERT|DELETE|JOIN|GROUP BY|ORDER BY|LIMIT|SET|VALUES|"
        r"INTO|AND|OR|NOT|NULL|AS|ON|CREATE|TABLE|ALTER|BEGIN|COMMIT)\b",
    ),
    "http_timeout": (
        r"\btime?outs?\b|\b(?:hangs?|wait(?:s|ing)?) forever\b",
        r"\b(?:requests|httpx|\w*session|\w*client|sess|s)\.(?:get|post|put|patch|delete|head|request)"
        r"\((?![^()]*(?:\([^()]*\)[^()]*)*\btimeout\s*=)",
    ),
    "json_trailing_comma": (r"\btrailing commas?\b", r",\s*[}\]]"),
    "if_not_exists": (
        r"\bif not exists\b|\bidempotent\b",
        r"(?i)\bcreate\s+(?:unique\s+)?(?:table|index|schema|view|extension|sequence|type)\s+"
        r"(?!(?:concurrently\s+)?if\s+not\s+exists\b)",
    ),
    "sql_params": (
        r"\bparam(?:et)?(?:eri[sz]|ri[sz])\w*|\bplaceholders?\b|\bbound param\w*|"
        r"\bbind (?:param|var)\w*|\bsql injection\b|\binjectable\b|\bprepared statements?\b",
        rf"(?i)\bf\"[^\"\n]*{_SQL}[^\"\n]*\{{|\bf'[^'\n]*{_SQL}[^'\n]*\{{|"
        rf"\"[^\"\n]*{_SQL}[^\"\n]*\"\s*{_BUILT}|'[^'\n]*{_SQL}[^'\n]*'\s*{_BUILT}|"
        rf"`[^`]*{_SQL}[^`]*\$\{{|\bSprintf\(\s*\"[^\"\n]*{_SQL}",
    ),
    "google_docstring": (
        r"\bgoogle[- ]?style\b|\bgoogle docstrings?\b|\bArgs:\s*/\s*Returns:",
        r"(?m)^\s*(?:Parameters|Returns|Raises|Yields|Attributes)\s*\n\s*-{3,}|"
        r"^\s*[:@](?:param|type|returns?|rtype|raises?)\b",  # reST, epydoc
    ),
    "keep_a_changelog": (
        r"\bkeep[- ]?a[- ]?changelog\b",
        r"(?s)\A(?!.*^\s*#{2,4}\s*(?:Added|Changed|Deprecated|Removed|Fixed|Security)\b)",
    ),
    "tests_no_sleep": (
        r"\bsleeps?\b|\breal time\b|\bfake timers\b",
        r"\btime\.sleep\(|\bThread\.sleep\(|\btime\.Sleep\(|\bawait\s+(?:asyncio\.)?sleep\(|"
        r"\bsetTimeout\(|(?m:^)\s*sleep\s+\d",
    ),
    "rust_unwrap": (
        r"\bunwraps?\b|\bexpect\(\)",
        r"\.unwrap\(\s*\)|\.expect\(",
    ),
    "curl_fail": (
        r"--fail\b|\bfail flag\b|\bcurl\b[^.]{0,30}(?<![\w-])-f\b|(?<![\w-])-f\b[^.]{0,30}\bcurl\b",
        # not on a comment's line: "# curl without -f hides errors" runs nothing
        r"(?m)^(?![ \t]*(?:#|//))[^\n]*?\bcurl\b"
        r"(?![^\n]*(?:\s--fail(?:-with-body)?\b|\s-[A-Za-z]*f[A-Za-z]*\b))",
    ),
    "kubectl_namespace": (
        r"\bnamespaces?\b|\bkubectl\b[^.]{0,30}(?<![\w-])-n\b|(?<![\w-])-n \w+",
        # a command about the client or the cluster takes no namespace (config, version,
        # nodes, namespaces themselves)
        r"(?m)^\s*(?:\$\s*)?kubectl\b(?![^\n]*(?:\s-n\s|\s-n=|\s--namespace\b|\s-A\b|"
        r"\s--all-namespaces\b))(?!\s+(?:config|version|cluster-info|api-resources|"
        r"api-versions|completion|plugin|explain)\b)(?!\s+(?:get|describe|top)\s+(?:nodes?|no|"
        r"namespaces?|ns|pv|persistentvolumes?|clusterroles?|clusterrolebindings?|crds?|"
        r"storageclass(?:es)?)\b)",
    ),
    "go_ctx_first": (
        r"\bctx\b|\bcontext\b[^.]{0,30}\bfirst\b",
        r"\bfunc\s*(?:\([^)]*\)\s*)?\w+\((?!\s*ctx\s+context\.Context\b)[^)]*\bcontext\.Context\b",
    ),
    "sql_transaction": (
        r"\bBEGIN\b|\btransactions?\b",
        r"(?is)\A(?=.*\b(?:update|delete|insert)\b)(?!.*\b(?:begin|start transaction)\b)",
    ),
    "commit_sha": (
        r"\bcommit (?:hash|sha)(?:es|s)?\b|\bshas\b|\bSHAs?\b|\bhashes\b",
        r"(?<![\w/#.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w-])",
    ),
    "js_single_quotes": (
        r"\bsingle[- ]?q(?:uo|ou)tes?\b|\bdouble[- ]?q(?:uo|ou)tes\b",
        r"(?m)^(?:[^\"'`\n]|'(?:\\.|[^'\\\n])*'|`[^`]*`)*\"",
    ),
    "pinned_action": (
        r"\bpin\w*\b[^.]{0,20}\bactions?\b|\bunpinned actions?\b|"
        r"\bactions?\b[^.]{0,20}\bversions?\b|\breleased? versions?\b|\bversion tags?\b|"
        r"(?<![\w@])@(?:main|master)\b",
        r"(?m)^\s*-?\s*uses:\s*(?!\.{0,2}/)[\w.-]+/[\w./-]+(?:@(?:main|master|HEAD|latest|dev|develop|"
        r"trunk))?\s*$",
    ),
    "hardcoded_secret": (
        r"\bhard-?cod\w*|\bcredentials?\b|\bsecrets?\b|\bpasswords?\b|\bapi keys?\b|"
        r"\btokens?\b|\bkeys in (?:the )?source\b|\bplaceholders?\b",
        rf"(?i)\b[\w-]*?{_SECRET_NAME}[\"']?[ \t]*[:=][ \t]*"
        rf"(?:[\"'](?![<$%{{])[^\"'\n<>$]{{3,}}[\"']|"  # a quoted value, or a bare one
        rf"(?![<$%{{(])(?=[^\s,;)]*[\d-])[^\s\"'<>$.(),;]{{3,}}(?=[\s,;)]|$))",
    ),
    "mutable_default": (
        r"\bmutable defaults?\b|\bdefault (?:value|arg\w*|param\w*)\b[^.]{0,40}\bshared\b|"
        r"\b(?:\{\}|\[\]) as (?:a |the )?default\b",
        r"\bdef\s+\w+\s*\([^)]*=\s*(?:\[\s*\]|\{\s*\}|set\(\s*\)|dict\(\s*\)|list\(\s*\))",
    ),
    "index_concurrently": (
        r"\bconcurrent(?:ly)?\b",
        r"(?i)\bcreate\s+(?:unique\s+)?index\s+(?!concurrently\b)",
    ),
    "reversible_migration": (
        r"\bdown (?:migrations?|sections?|steps?|scripts?|markers?|blocks?)\b|\bmigrate:down\b|"
        r"\+goose down\b|\bdowngrades?\b|\breversible\b|\broll ?backs?\b|"
        r"\b(?:an?|the|empty) down\b",
        _UNDONE,
    ),
    "async_suffix": (
        r"(?-i:Async\b)",
        # Task<List<int>>: generic arguments nest; Main is the entry point's name
        r"\b(?:Task|ValueTask)(?:<(?:[^<>\n]|<(?:[^<>\n]|<[^<>\n]*>)*>)*>)?\s+(?!Main\b)"
        r"[A-Za-z_]\w*(?<!Async)\s*\(",
    ),
    "aware_datetime": (
        r"\b(?:tz|timezone|time zone)[- ]aware\b|\baware (?:datetimes?|timestamps?)\b|"
        r"\bnaive (?:datetimes?|timestamps?|now)\b|\butcnow\b",
        r"\bdatetime\.(?:now|today|utcnow|utcfromtimestamp)\(\s*\)|\.utcnow\(",
    ),
    "action_sha": (
        r"\bpin\w*\b[^.]{0,40}\b(?:commit )?shas?\b|\bsha[- ]?pin\w*|"
        r"\b(?:full|40[- ]char\w*) (?:commit )?shas?\b",
        r"(?m)^\s*-?\s*uses:\s*(?!\.{0,2}/|docker://)[\w.-]+/[\w./-]+"
        r"(?:@(?![0-9a-f]{40}\b)\S*)?\s*(?:#.*)?$",
    ),
    "use_logger": (
        r"\blogg(?:er|ing)\b|\b(?:slf4j|log4j|logback|zap|slog|structlog)\b|\blog it\b|"
        r"\blog\.(?:debug|info|warn\w*|error)\b|\bstd(?:out|err)\b",
        r"(?<![\w.])print\s*\(|\bSystem\.(?:out|err)\.print\w*\s*\(|\.printStackTrace\s*\(|"
        r"(?<![\w.])console\.(?:log|info|debug)\s*\(|\bfmt\.Print\w*\s*\(|"
        r"(?<![\w.])e?println!\s*\(",
    ),
    "no_var": (
        r"\bconst\s*/\s*let\b|\blet\s*/\s*const\b|\bno-var\b|\bconst by default\b",
        r"(?<![\w.$])var\s+[\w$\[{]",
    ),
    "go_no_panic": (
        r"\bpanics?\b|\berrors are values\b",
        r"(?<![\w.])panic\(",
    ),
    "swift_force_try": (
        r"\btry!|\bforce[- _]?try\b",
        r"\btry!",
    ),
    "php_strict_types": (
        r"\bstrict[_ ]types\b",
        r"(?m)^[ \t]*<\?php\b(?!\s*declare\s*\(\s*strict_types\s*=\s*1\s*\)\s*;)",
    ),
    "env_placeholders": (
        r"\bplaceholders?\b|<[a-z][\w-]*(?: [\w-]+)*>",
        # an env line with a real value: an example file holds empty values or <placeholders>
        r"(?m)^[ \t]*(?:export[ \t]+)?[A-Z][A-Z0-9_]*=(?![ \t]*(?:<[^>\n]*>)?[ \t]*$)",
    ),
    "job_timeout": (
        r"\btimeout-minutes\b|\bjob(?:-level)? timeouts?\b|"
        r"\btimeouts? (?:on|for) (?:every|each) job\b",
        # a CI job (a key whose block has runs-on:) with no timeout-minutes beside runs-on
        r"(?m)^(?P<i>[ \t]*)[\w.-]+:[ \t]*\n"
        r"(?=(?:(?P=i)[ \t]+[^\n]*\n|[ \t]*\n)*?(?P=i)(?P<p>[ \t]+)runs-on:)"
        r"(?!(?:(?P=i)[ \t]+[^\n]*\n|[ \t]*\n)*?(?P=i)(?P=p)timeout-minutes:)",
    ),
    "tf_region_variable": (
        r"\bregions?\b[^.]{0,50}\b(?:variables?|var\.\w+|hard-?cod\w*|string literals?)|"
        r"\bhard-?cod\w*\b[^.]{0,20}\bregions?\b|\bvar\.region\b",
        r"(?m)^[ \t]*region[ \t]*=[ \t]*\"",  # a region written as a string (Terraform)
    ),
    "tf_snake_case": (
        r"\bsnake_case\b[^.]{0,40}\b(?:names?|labels?|resources?|variables?|outputs?)\b|"
        r"\bresource labels?\b|\btflint\b",
        # a resource's, data source's, variable's, output's or module's name not in snake_case
        r"(?m)^[ \t]*(?:resource|data)[ \t]+\"[^\"\n]+\"[ \t]+\"(?![a-z0-9_]+\")|"
        r"^[ \t]*(?:variable|output|module)[ \t]+\"(?![a-z0-9_]+\")",
    ),
    "kubectl_context": (
        r"(?<![\w-])--context\b",
        r"(?m)^\s*(?:\$\s*)?kubectl\b(?![^\n]*\s--context\b)(?!\s+(?:config|version|completion|"
        r"plugin|explain)\b)",
    ),
    "frozen_string_literal": (
        r"\bfrozen_string_literal\b|\bmagic comment\b",
        r"(?s)\A(?!\s*(?:#![^\n]*\n\s*)?#[ \t]+frozen_string_literal:[ \t]*true\b)(?=\s*\S)",
    ),
    "tls_verify": (
        r"\b(?:tls|ssl|certificate|cert)s? verif\w*|\bverif(?:y|ication)\b|\bCA bundle\b|"
        r"\binsecure\b|\bour CA\b",
        r"\bverify\s*=\s*False\b|--insecure\b|--no-check-certificate\b|"
        r"\bInsecureSkipVerify:\s*true\b|\brejectUnauthorized:\s*false\b|"
        r"NODE_TLS_REJECT_UNAUTHORIZED\s*=\s*['\"]?0|\bssl\._create_unverified_context\b|"
        r"\bCERT_NONE\b|\bcurl\b[^\n]*\s-[A-Za-z]*k[A-Za-z]*\b",
    ),
    "clippy_unwrap_used": (r"\bunwrap_used\b", r"\.unwrap\(\s*\)"),  # expect_used is its own lint
}
CONVENTION_CUES = {name: cue for name, (cue, _) in _CONVENTIONS.items()}
# Conventions of one programming language's code, read in the languages the corrected
# answer broke them in (``narrow.to_languages``): a Python ``print(`` rule is not broken by
# ``python -c 'print(1)'`` in a shell block, nor JavaScript's ``==`` by Python's. Commands,
# SQL, images and secrets are written in many languages' blocks (a YAML step, a Dockerfile's
# RUN, a query in a Python string) and stay on all the code.
_ONE_LANGUAGE = {
    "f_string", "pathlib", "pytest", "async_await", "strict_equality", "absolute_import",
    "named_export", "lazy_logging", "go_error_strings", "ts_any", "go_wrap_w", "rust_unwrap",
    "go_ctx_first", "js_single_quotes", "mutable_default", "http_timeout", "google_docstring",
    "async_suffix", "aware_datetime", "use_logger", "no_var", "go_no_panic", "swift_force_try",
    "php_strict_types", "clippy_unwrap_used", "frozen_string_literal",
}  # fmt: skip
LANGUAGE_CONSTRUCTS = frozenset(
    construct for name, (_, construct) in _CONVENTIONS.items() if name in _ONE_LANGUAGE
)
CONVENTION_CHECKS = {
    name: [Check("not_regex", construct, "code"), Check("not_regex", construct, "answer")]
    for name, (_, construct) in _CONVENTIONS.items()
}
# Conventions named by what they rule out ("comma joins", "untagged", "select *", "AM/PM"):
# a negation before the name is the rule itself, not a remedy refused.
_NAMED_BY_WHAT_IS_OUT = re.compile(
    r"(?i)\b(?:comma|implicit) joins?\b|\buntagged\b|:latest\b|\bno latest\b|\bselect\s*\*|"
    r"\bstar selects?\b|\bselect star\b|\bam\s*/\s*pm\b|\brelative imports?\b|\bdefault exports?\b|"
    r"\bexport default\b|\bstring concatenation\b|\b(?:runs? |running )?as root\b|"
    r"\bbacktic?k?s?(?: for)?(?: command)? substitution\b"
)


# Conventions whose every name says what is out ("no f-strings in log calls", "never rm -rf",
# "error strings shouldn't be capitalized"): a negation is the rule itself.
_ALWAYS_OUT = {
    "lazy_logging", "go_error_strings", "rm_recursive_force", "ts_any", "quoted_vars",
    "initialisms", "lowercase_sql", "json_trailing_comma", "tests_no_sleep", "rust_unwrap",
    "commit_sha", "pinned_action", "hardcoded_secret", "mutable_default", "aware_datetime",
    "swift_force_try", "go_no_panic", "clippy_unwrap_used", "tls_verify",
}  # fmt: skip


def names_what_is_out(name: str, matched: str) -> bool:
    """Whether the words matched name the construct ruled out rather than the remedy."""
    return name in _ALWAYS_OUT or _NAMED_BY_WHAT_IS_OUT.fullmatch(matched.strip()) is not None
