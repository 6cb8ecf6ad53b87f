"""Reports lead with the answer, carry the evidence, and the HTML is self-contained."""

from __future__ import annotations

import json
import re
import stat
from html import escape, unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.promotion.verdict import decide
from skillopt_sleep.report import headline, render_html, render_md, write_reports
from skillopt_sleep.report.document import NightSummary
from trainer import TrainSettings
from trainer.result import TestLift as Lift
from trainer.sizing import size


def as_md(summary: dict[str, Any]) -> str:
    """The Markdown report of a summary as stored (read as every reader reads it)."""
    return render_md(NightSummary.from_json(summary))


def as_html(summary: dict[str, Any]) -> str:
    return render_html(NightSummary.from_json(summary))


def summary(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "night": "2026-11-29T02-00-00Z",
        "status": "done",
        "simulation": False,
        "ingest": {"files_changed": 3, "new_sessions": 2, "new_turns": 9},
        "mining": {"clusters": 5, "recurring": 2},
        "skills": [
            {
                "name": "commit-message",
                "managed": True,
                "outcome": "improved",
                "n_tasks": {"train": 6, "val": 8, "test": 5},
                "test": {
                    "before": 0.4,
                    "after": 0.7,
                    "lift": 0.3,
                    "ci_low": 0.1,
                    "ci_high": 0.5,
                    "n_tasks": 5,
                    "pass_all": {
                        "before": 0.2,
                        "after": 0.8,
                        "lift": 0.6,
                        "ci_low": 0.3,
                        "ci_high": 0.9,
                        "n_tasks": 5,
                    },
                },
                "edits": [
                    {
                        "status": "accepted",
                        "kind": "add",
                        "origin": "reflection",
                        "summary": "Keep the subject short",
                        "gate": {"effect": 0.25, "p_value": 0.008, "verdict": "accept"},
                    },
                    {
                        "status": "rejected",
                        "kind": "replace",
                        "origin": "reflection",
                        "summary": "Always use emoji",
                        "gate": {"effect": -0.1, "p_value": 0.9, "verdict": "reject"},
                    },
                ],
                "accepted": [
                    {
                        "origin": "corrections",
                        "edits": [
                            {
                                "kind": "add",
                                "text": "- Keep the subject under 50 chars.\n- No emojis.",
                                "anchor": "",
                                "section": "",
                                "origin": "corrections",
                            }
                        ],
                        "where": "epoch 0 step 0",
                        "effect": 0.25,
                        "nights": 1,
                    }
                ],
                "diff": "--- a\n+++ b\n+Keep the subject under 50 characters.\n",
                "promotion": {"status": "promoted", "path": "/x/SKILL.md"},
            },
            {
                "name": "ci-log-summary",
                "managed": False,
                "outcome": "not_enough_evidence",
                "reason": "3 val tasks cannot show an effect at alpha 0.05",
                "edits": [],
            },
        ],
        "usage": {
            "calls": 120,
            "tokens": 50000,
            "cost_usd": 0.0,
            "budget": {"max_calls": 400, "max_tokens": 1000000, "max_cost_usd": 1.0},
        },
        "history": {
            "commit-message": [
                {"night": "2026-11-28T02-00-00Z", "score": 0.4},
                {"night": "2026-11-29T02-00-00Z", "score": 0.7},
            ]
        },
        "problems": ["1 unparseable optimizer answer"],
    }
    base.update(extra)
    return base


def test_markdown_leads_with_the_answer_and_the_interval() -> None:
    md = as_md(summary())
    first_section = md.split("## Did my skills get better?")[1].split("## Cost")[0]
    assert "1 of 2 skill(s) got better tonight." in first_section
    assert (
        "commit-message: better — answers passing every rule 20% → 80% (+60 points, 95% CI +30 "
        "to +90, 5 test tasks); held-out score 0.40 → 0.70 (lift +0.30, 95% CI +0.10 to +0.50, "
        "5 test tasks); the edit that won (your own corrections): “- Keep the subject under 50 "
        "chars. - No emojis.”" in first_section
    )
    assert (
        "ci-log-summary: not enough evidence tonight — too few tasks of this kind to decide: "
        "3 validation tasks cannot show an improvement" in first_section
    )
    assert "| accepted | add | reflection | Keep the subject short | +0.25 | 0.008 | accept |" in md
    assert "| rejected | replace | reflection | Always use emoji | -0.10 | 0.900 | reject |" in md
    assert "+Keep the subject under 50 characters." in md
    assert "1 unparseable optimizer answer" in md


def test_the_lead_names_each_edit_that_won_and_where_it_came_from() -> None:
    s = summary()
    s["skills"][0]["accepted"].append(
        {"origin": "example+reflection", "edits": [
            {"kind": "add", "text": "Example of a good answer:\n\nfix: x", "origin": "example"},
            {"kind": "delete", "text": "", "anchor": "- Mention the files.",
             "origin": "reflection"}]}
    )  # fmt: skip
    line = next(ln for ln in as_md(s).splitlines() if ln.startswith("- commit-message:"))
    assert line.endswith(
        "the edits that won (your own corrections): “- Keep the subject under 50 chars. - No "
        "emojis.”; (a worked example and the optimizer's reflection on failed answers): "
        "“Example of a good answer: fix: x; - Mention the files.”"
    )
    assert "the edit that won" not in as_md(summary(skills=[summary()["skills"][1]]))


def test_the_user_s_own_accepted_answer_is_called_theirs_not_a_worked_example() -> None:
    from trainer.demos import example_edit

    corrections = {"kind": "add", "text": "- Start with fix:", "origin": "corrections"}
    theirs = example_edit("fix: trim the header row", accepted=True).to_dict()
    s = summary()
    s["skills"][0]["accepted"] = [
        {"origin": "corrections+accepted_answer", "edits": [corrections, theirs]}
    ]
    s["skills"][0]["edits"][0]["origin"] = "corrections+accepted_answer"
    won = (
        "the edit that won (your own corrections and one of your accepted answers): “- Start "
        "with fix:; Example of a good answer: fix: trim the header row”"
    )
    md, html = as_md(s), as_html(s)
    assert won in md and escape(won, quote=False) in html
    assert "worked example" not in md and "worked example" not in html
    assert "| accepted | add | corrections+accepted_answer |" in md
    written = NightSummary.from_json(s).to_json()["skills"][0]["accepted"][0]
    assert [e["origin"] for e in written["edits"]] == ["corrections", "accepted_answer"]


def test_a_report_without_pass_all_still_reads() -> None:
    """Nights before pass-all existed, and test splits without a rule judge, say the mean."""
    s = summary()
    s["skills"][0]["test"]["pass_all"] = None
    md = as_md(s)
    assert "commit-message: better — held-out score 0.40 → 0.70" in md
    assert "passing every rule" not in md and "passing every rule" not in as_html(s)


def test_empty_night_says_so() -> None:
    assert (
        headline(NightSummary.from_json(summary(skills=[])))
        == "No recurring task was ready for training tonight."
    )
    assert "Nothing." in as_md(summary(skills=[], problems=[]))


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in {"src", "href", "xlink:href", "action"} and value:
                self.urls.append(value)


def test_html_is_self_contained_and_has_its_charts() -> None:
    html = as_html(summary())
    parser = _Collector()
    parser.feed(html)
    assert parser.urls == []
    assert "script" not in parser.tags and "link" not in parser.tags and "img" not in parser.tags
    assert not re.search(r"url\(|@import|https?://", html)
    assert parser.tags.count("svg") == 4
    assert html.index("answers passing every rule") < html.index("held-out score")
    assert html.index("Held-out answers passing every rule") < html.index("over nights")
    # the score line has one point per night, the bars one per accepted/rejected count
    assert parser.tags.count("circle") == 2
    assert "polyline" in parser.tags
    assert html.index("Did my skills get better?") < html.index("<svg")


def test_html_escapes_text_from_logs() -> None:
    s = summary()
    s["skills"][0]["diff"] = "+<script>alert(1)</script>"
    html = as_html(s)
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_simulation_is_labelled() -> None:
    s = summary(simulation=True)
    assert "SIMULATION" in as_md(s) and "SIMULATION" in as_html(s)


def test_write_reports_creates_private_files(tmp_path: Path) -> None:
    paths = write_reports(NightSummary.from_json(summary()), tmp_path / "night")
    assert set(paths) == {"md", "json", "html"}
    for path in paths.values():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(paths["json"].read_text())["night"] == "2026-11-29T02-00-00Z"


def _skill(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "review-pr",
        "managed": True,
        "outcome": "unchanged",
        "reason": "no edit passed the gate",
        "n_tasks": {"train": 6, "val": 9, "test": 4},
        "test": None,
        "edits": [],
        "promotion": {"status": "unchanged", "reason": "no edit was accepted"},
        "counters": {},
    }
    return {**base, **fields}


def _decided(
    test: dict[str, Any] | None,
    note: str = "",
    *,
    promotion: dict[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A skill whose one accepted edit met this held-out test: its outcome and reason from
    the one function that decides them (`promotion.verdict.decide`), its promotion as
    promotion recorded it."""
    measured = (
        Lift.from_dict({"start_score": 0.4, "best_score": 0.4 + test["lift"], **test})
        if test
        else Lift.skipped(note)
    )
    v = decide(accepted=1, undecided=0, endpoint_failed="", stop_reason="completed",
               test=measured)  # fmt: skip
    staged = {"status": "staged", "reason": f"staged: {v.reason}"}
    accepted = [{"status": "accepted", "kind": "add", "summary": "x",
                 "gate": {"verdict": "accept", "effect": 0.3, "n_tasks": 16}}]  # fmt: skip
    shown = {"before": 0.4, "after": 0.4 + test["lift"], **test} if test else None
    return _skill(outcome=v.outcome, reason=v.reason, action=v.action, edits=accepted,
                  promotion=promotion or staged, test=shown, **fields)  # fmt: skip


def _flat_gate() -> dict[str, Any]:
    return {"verdict": "underpowered", "effect": 0.0, "p_value": 1.0, "n_tasks": 9,
            "n_differ": 1, "reason": "only 1 of 9 tasks differ; cannot reach alpha"}  # fmt: skip


@pytest.mark.parametrize(
    ("skill", "extra", "why", "todo"),
    [
        (_skill(stopped_by="budget: calls", reason="training ended by budget: calls"), {},
         "calls budget ran out", "Raise budget.max_calls"),
        (_skill(stopped_by="budget: deadline"), {}, "deadline came before", "daemon.schedule"),
        # the comparison it cut keeps its samples, and the advice says so
        (_skill(stopped_by="budget: deadline",
                pending=[{"summary": "x", "nights": 1, "e_value": 2.0, "e_needed": 20.0,
                          "effect": 0.05, "sweeps": 3, "pairs": 48, "n_tasks": 16,
                          "cut_by": "deadline"}]), {},
         "deadline came before an edit could pass the gate (48 paired samples of the "
         "comparison it cut are kept)", "daemon.schedule"),
        # an edit passed the gate before the deadline; the held-out test found no time
        (_decided(None, "budget: deadline", stopped_by="budget: deadline"), {},
         "the held-out test was not measured (budget: deadline): it waits for your review",
         "daemon.schedule"),
        (_decided(None, "budget: calls", stopped_by="budget: calls"), {},
         "the held-out test was not measured (budget: calls)", "budget.max_calls"),
        (_skill(outcome="not_enough_evidence",
                reason="underpowered: 3 val tasks cannot reach alpha=0.00625 (needs >= 8)"), {},
         "too few tasks of this kind", "Keep using your agent for this task"),
        (_skill(edits=[{"status": "rejected", "kind": "add", "summary": "x", "gate": _flat_gate()}
                       for _ in range(3)]), {},
         "too weak to follow a skill", "TARGET_MODEL"),
        # a pending edit is named with its evidence even when most tasks answered alike
        (_skill(outcome="not_enough_evidence", reason="1 candidate edit(s) still pending",
                edits=[{"status": "pending", "kind": "replace", "summary": "x",
                        "gate": {**_flat_gate(), "verdict": "pending", "effect": 0.167}}],
                pending=[{"summary": "x", "since": "epoch 0 step 1", "nights": 1,
                          "e_value": 5.01, "e_needed": 20.0, "effect": 0.167, "se": 0.1,
                          "sweeps": 2, "pairs": 32, "n_tasks": 16,
                          "decides": "accepted when its e-value reaches 20"}]),
         {}, "effect +0.17 on the val tasks, e = 5.0 of the 20 needed", "trainer.max_samples"),
        # an edit passed the gate (the target did follow it); the test did not go down but
        # cannot confirm it alone: written where the policy allows, and the advice says so
        (_decided({"n_tasks": 16, "lift": 0.06, "ci_low": -0.05, "ci_high": 0.17},
                  promotion={"status": "promoted", "reason": "gate accepted and the held-out "
                             "test did not go down"}), {},
         "(lift +0.06, 95% CI -0.05 to +0.17, 16 test tasks); it was written, since the test "
         "did not go down", "later nights measure"),
        (_decided({"n_tasks": 16, "lift": 0.17, "ci_low": -0.02, "ci_high": 0.36},
                  promotion={"status": "staged", "reason": "staged: your own skill"}), {},
         "it waits for your review", "later nights measure"),
        (_skill(outcome="error", reason="the model endpoint failed every call (24 errors)"),
         {"model_failure": "target model m at http://127.0.0.1:9/v1: connection failed: "
                           "Connection refused"},
         "http://127.0.0.1:9/v1: connection failed: Connection refused", "skillopt-sleep doctor"),
        (_skill(counters={"unparseable_proposals": 5, "parsed_proposals": 1}), {},
         "optimizer model's answers could not be read", "OPTIMIZER_MODEL"),
    ],
)  # fmt: skip
def test_an_undecided_night_says_why_and_what_to_do(
    skill: dict[str, Any], extra: dict[str, Any], why: str, todo: str
) -> None:
    s = summary(skills=[skill], not_trained=[], **extra)
    for text in (as_md(s), unescape(as_html(s))):
        answer = text.split("Did my skills get better?")[1].split("What to do")[0]
        assert why in answer, answer
        action = text.split("What to do")[1].split("Cost")[0]
        assert todo in action, action


def _deadline_night(target_seconds: float) -> dict[str, Any]:
    """A skill whose night was planned at 4 s per target call in 25 minutes and stopped by
    the deadline after 8 target calls took `target_seconds` each."""
    settings = TrainSettings(epochs=1, steps_per_epoch=1, minibatch=4, max_samples=4)
    plan = size(settings, {"train": 4, "val": 16, "test": 16}, worth=0.1,
                per_call={"optimizer": 28.0, "target": 4.0}, available_seconds=1500.0)  # fmt: skip
    assert plan.fits
    usage = {"calls": 8, "by_role": {"target": {"calls": 8, "seconds": 8 * target_seconds,
                                                "timed_calls": 8}}}  # fmt: skip
    return _skill(stopped_by="budget: deadline", plan=plan.to_dict(), usage=usage)


def test_a_deadline_on_a_busy_machine_says_how_slow_the_calls_were() -> None:
    """The plan fitted at its assumed pace; the deadline came because the calls were slower
    tonight. The advice gives the pace measured and the time the plan needs at it, instead
    of telling the user to start nights earlier."""
    slow = _deadline_night(12.0)
    plan = slow["plan"]
    need = plan["calls"]["target"] * 12.0 / 60
    calls = sum(plan["calls"].values())
    s = summary(skills=[slow], not_trained=[])
    for text in (as_md(s), unescape(as_html(s))):
        answer = text.split("Did my skills get better?")[1].split("What to do")[0]
        assert "the models took target 12.0 s per call tonight" in answer, answer
        assert f"the plan's {calls} calls need at least {need:.0f} minutes of the 25" in answer
        assert "less busy" in text.split("What to do")[1]
    # at the planned pace the deadline is the plain one: start nights earlier
    steady = as_md(summary(skills=[_deadline_night(4.0)], not_trained=[]))
    assert "s per call tonight" not in steady and "daemon.schedule" in steady


@pytest.mark.parametrize(
    ("seconds", "calls", "todo"),
    [(600.0, None, "daemon.schedule"), (None, 40, "Raise budget.max_calls")],
)
def test_a_plan_that_cannot_fit_says_which_limit_to_raise(
    seconds: float | None, calls: int | None, todo: str
) -> None:
    settings = TrainSettings(epochs=1, steps_per_epoch=1, minibatch=4, max_samples=4)
    plan = size(settings, {"train": 4, "val": 16, "test": 16}, worth=0.1,
                per_call={"optimizer": 28.0, "target": 4.0}, available_seconds=seconds,
                available_calls=calls)  # fmt: skip
    assert plan.can_detect and not plan.fits
    md = as_md(summary(skills=[_skill(plan=plan.to_dict())], not_trained=[]))
    assert "tonight could not show what is worth having: tonight's plan needs" in md
    assert todo in md.split("What to do")[1].split("## Cost")[0], md


def test_what_to_do_names_the_review_commands_and_groups_the_same_advice() -> None:
    staged = _skill(name="commit-message", outcome="improved", reason="",
                    test={"before": 0.4, "after": 0.7, "lift": 0.3, "ci_low": 0.1,
                          "ci_high": 0.5, "n_tasks": 5},
                    promotion={"status": "staged",
                               "reason": "user-written skill: staged for review"})  # fmt: skip
    a = _skill(name="a", stopped_by="budget: calls")
    b = _skill(name="b", stopped_by="budget: calls")
    md = as_md(summary(skills=[staged, a, b], not_trained=[]))
    todo = md.split("## What to do")[1].split("## Cost")[0]
    assert (
        "`skillopt-sleep diff commit-message`, then `skillopt-sleep adopt commit-message`" in todo
    )
    assert todo.count("budget.max_calls") == 1 and "- a, b: Raise budget.max_calls" in todo
    assert "1 of 3 skill(s) got better tonight; 1 waits for your review." in md


def test_no_empty_chart_boxes() -> None:
    one_night = summary(history={"commit-message": [{"night": "n1", "score": 0.7}]})
    html = as_html(one_night)
    assert "over nights" not in html  # one point is not a line
    assert "Held-out score tonight, before and after" in html
    assert "no data" not in html
    idle = summary(
        skills=[_skill()], history={}, usage={"calls": 0, "tokens": 0, "cost_usd": 0.0,
                                              "budget": {"max_calls": 400}},
    )  # fmt: skip
    html = as_html(idle)
    assert "<svg" not in html and "<h2>Charts</h2>" not in html
    assert "0 model calls" in html  # said in words instead


def test_edit_summaries_wrap_whole_and_underpowered_shows_its_reason() -> None:
    text = ("When the diff touches more than one module, name the modules in the subject "
            "line and keep the body to a list of the user-visible changes")  # fmt: skip
    edit = {"status": "rejected", "kind": "add", "summary": text, "gate": _flat_gate()}
    s = summary(skills=[_skill(edits=[edit])])
    md, html = as_md(s), as_html(s)
    assert text in md and escape(text) in html
    assert "underpowered: only 1 of 9 tasks differ; cannot reach alpha" in md
    assert "underpowered: only 1 of 9 tasks differ; cannot reach alpha" in html
    assert "overflow-wrap:anywhere" in html and "table-layout:fixed" in html


def test_the_summary_keeps_edit_texts_whole() -> None:
    from skillopt_sleep.night.summary import _edit_text

    short = "Name every module the diff touches in the subject line, then list the changes."
    assert _edit_text([{"text": short}]) == short  # was cut to 60 characters mid-word
    long = " ".join(["word"] * 200)
    cut = _edit_text([{"text": long}])
    assert len(cut) <= 300 and cut.endswith("word …")


def test_pending_candidates_are_listed_with_their_evidence_and_what_decides_them() -> None:
    s = summary()
    s["skills"][1]["pending"] = [
        {
            "summary": "- Run the linter before committing.",
            "since": "epoch 0 step 2",
            "nights": 2,
            "e_value": 3.1,
            "e_needed": 80.0,
            "effect": 0.04,
            "se": 0.02,
            "sweeps": 12,
            "pairs": 120,
            "n_tasks": 10,
            "decides": "accepted when its e-value reaches 80 (now 3.1); about 9 more sweep(s)",
            "cut_by": "deadline",
        }
    ]
    line = (
        "- - Run the linter before committing. — still undecided: 120 paired samples kept for "
        "the next night; the deadline budget ended tonight's sweeps; effect +0.04 ± 0.020, e "
        "3.1 of 80 after 12 sweep(s) of 10 val tasks over 2 night(s); accepted when its "
        "e-value reaches 80"
    )
    md = as_md(s)
    section = md.split("## ci-log-summary")[1]
    assert "Pending (undecided, carried to the next night):" in section and line in section
    assert "Pending (undecided" not in md.split("## ci-log-summary")[0]  # only where pending
    carried = {
        "status": "accepted",
        "kind": "add",
        "summary": "Lint first",
        "nights": 2,
        "gate": {"effect": 0.1, "e_value": 95.0, "e_needed": 80.0, "verdict": "accept"},
    }
    s["skills"][0]["edits"].append(carried)  # fmt: skip
    assert "| Lint first | +0.10 | e 95 of 80 | accept (evidence of 2 nights) |" in as_md(s)
    html = as_html(s)
    assert "Pending (undecided, carried to the next night):" in html
    assert "e 3.1 of 80 after 12 sweep(s) of 10 val tasks over 2 night(s)" in html
    assert "still undecided: 120 paired samples kept for the next night" in html
    (held,) = NightSummary.from_json(s).to_json()["skills"][1]["pending"]
    assert held["kept"] == "still undecided: 120 paired samples kept for the next night"
    assert held["cut_by"] == "deadline"


def test_the_report_says_what_the_gate_controls_and_at_which_level() -> None:
    from skillopt_sleep.night.summary import _gate

    s = summary(gate=_gate(0.1))
    for text in (as_md(s), as_html(s)):
        assert "The gate controls the family-wise false-accept rate 0.1 per skill and night" in text
        assert "at most 0.1" in text
    assert "controls" not in as_md(summary())  # a report written before it said


def test_every_accepted_edit_says_where_it_came_from_and_older_records_still_read() -> None:
    from skillopt_sleep.night.model import Job, Promotion, TrainedSkill
    from skillopt_sleep.night.summary import skill_summary

    rule = {"kind": "add", "text": "- No ## headings.", "anchor": "", "section": "",
            "rationale": "r", "origin": "reflection"}  # fmt: skip
    example = {"kind": "add", "text": "Example of a good answer:\n\nfix: x", "origin": "example"}
    old = {"kind": "delete", "text": "", "anchor": "## Steps"}  # written before edits said
    history = [
        {"edits": [rule], "where": "epoch 0 step 0", "evidence": {"effect": 0.3}, "runs": ["n1"]},
        {"edits": [old], "where": "epoch 0 step 1", "evidence": {"effect": 0.2}},
        {"edits": [rule | {"text": "- Short."}, example], "where": "epoch 0 step 2 (on top)",
         "evidence": {"effect": 0.1}, "runs": ["n1"]},
    ]  # fmt: skip
    trained = TrainedSkill.from_dict(
        {"skill": "s", "start_text": "a", "best_text": "b", "diff": "", "accepted": 3,
         "stop_reason": "completed", "test": Lift.unchanged().to_dict(), "usage": {},
         "counters": {}, "history": history,
         "rejected": [{"edits": [example], "reason": "screen", "edit_hash": "e1"}]}
    )  # a night's checkpoint, as stored  # fmt: skip
    job = Job("s", True, ("c",), "a", {}, ())
    s = skill_summary(job, trained, Promotion("promoted", ""))
    assert [(a.origin, [e["origin"] for e in a.edits]) for a in s.accepted] == [
        ("reflection", ["reflection"]),
        ("unknown", ["unknown"]),
        ("reflection+example", ["reflection", "example"]),
    ]
    assert s.accepted[0].edits[0] == {
        "kind": "add",
        "text": "- No ## headings.",
        "anchor": "",
        "section": "",
        "origin": "reflection",
    }
    assert s.accepted[0].effect == 0.3 and s.accepted[1].where == "epoch 0 step 1"
    assert [e.origin for e in s.edits] == [
        "reflection", "unknown", "reflection+example", "example"]  # fmt: skip
    report = summary(skills=[s.to_json() | {"name": "s", "outcome": "improved", "test": None}])
    md = as_md(report)
    assert "| status | kind | origin | edit |" in md
    assert "| accepted | add | reflection | - No ## headings. |" in md
    assert "| rejected | add | example |" in md
    html = as_html(report)
    assert "<th>origin</th>" in html and "<td>reflection+example</td>" in html
    assert json.loads(json.dumps(report))["skills"][0]["accepted"][2]["origin"] == (
        "reflection+example"
    )
