"""What the optimizer is shown and what of its answer is used: the judge firewall, the
user's own words, proposals parsed, repaired or counted unparseable, the bounded proposal
schema and its anchors."""

from __future__ import annotations

import json
from dataclasses import replace

from scripted_helpers import Repeating

from trainer import TrainSettings, optimize, reflect
from trainer.backends.base import Completion, Roles
from trainer.edits import EDIT_KINDS
from trainer.reflect import (
    MAX_ANCHOR_CHOICES,
    anchor_choices,
    proposal_schema,
    question_messages,
    read_proposals,
)
from trainer.sim import SimWorld
from trainer.skill import SkillDoc, count_tokens
from trainer.tasks import Judge, Task

WORLD = SimWorld.generate(2, n_rules=4, n_harmful=2, n_train=12, n_val=30, n_test=20)
SETTINGS = TrainSettings(epochs=2, steps_per_epoch=3, minibatch=6, seed=1)


def reflections(seen: list) -> list:
    """The reflection prompts among an optimizer's calls (not its worked-example answers)."""
    return [m for m in seen if m[0]["content"].startswith("You improve a skill")]


def test_unrecoverable_json_is_counted_and_broken_json_recovered() -> None:
    bad = Repeating("I would make the skill clearer.")
    roles = WORLD.roles()
    r = optimize(
        WORLD.start_skill, WORLD.tasks, Roles(bad, roles.target, roles.judge), settings=SETTINGS
    )
    assert r.counters["unparseable_proposals"] == len(reflections(bad.seen)) > 0
    assert r.accepted == 0


def test_judge_firewall_hides_and_blocks_judge_internals() -> None:
    regex, rubric = r"\bREL-\d{3}\b", "names the rollback plan and who approves the release"
    tasks = [
        Task(
            f"t{i}",
            f"Prepare release {i}.",
            split,
            (Judge("regex", regex), Judge("rubric", rubric), Judge("contains", "rollback")),
        )
        for i, split in enumerate(["train"] * 4 + ["val"] * 8 + ["test"] * 2)
    ]
    world = SimWorld.for_tasks(tasks, seed=1)
    sneaky = Repeating(
        json.dumps(
            {
                "edits": [
                    {"kind": "add", "text": f"Always match {regex}."},
                    {"kind": "add", "text": f"The answer {rubric}."},
                ]
            }
        )
    )
    roles = world.roles()
    r = optimize(
        world.start_skill,
        tasks,
        Roles(sneaky, roles.target, roles.judge),
        settings=replace(SETTINGS, alpha=0.5),
    )
    shown = json.dumps(sneaky.seen)
    assert regex not in shown and rubric not in shown
    assert "did not have the expected form" in shown
    assert r.counters["firewall_rejected"] >= 2 and r.counters.get("comparisons", 0) == 0
    assert all("judge firewall" in x.reason for x in r.rejected)


class Cycles(Repeating):
    """An optimizer that proposes the given edits one per reflection, in turn (and has no
    corrected answer to offer for a worked example)."""

    def __init__(self, *texts: str) -> None:
        super().__init__("")
        self.texts = texts

    def complete(self, messages, *, json_schema=None, max_tokens=None) -> Completion:
        if not messages[0]["content"].startswith("You improve a skill"):
            return Completion("")
        self.seen.append(messages)
        text = self.texts[(len(self.seen) - 1) % len(self.texts)]
        return Completion(json.dumps({"edits": [{"kind": "add", "text": text}]}), 10, 10)


def test_the_user_s_own_words_pass_the_firewall_and_judge_internals_do_not() -> None:
    # A rubric as mining builds it: the request, an accepted answer, the user's correction
    # quoted verbatim, and the grading scaffolding. Only the user's words are theirs to teach.
    said = "Use pytest, not unittest, and run it with -q before you say it is done."
    accepted = "Ran pytest -q on the changed modules: 42 passed in 3.1 seconds, nothing skipped."
    scaffold = "Score 1.0 when the answer does what was asked and respects every correction"
    rubric = (
        f"The user asked: fix the failing test\n\nAn answer the user accepted for this kind of "
        f"request:\n{accepted}\n\nThe user corrected earlier answers of this kind with:\n"
        f"- {said}\n\n{scaffold} above; 0.0 when it ignores a correction."
    )
    judges = [
        {"kind": "rubric", "value": rubric, "quotes": ["fix the failing test", said]},
        {"kind": "contains", "value": "run it with -q before you say", "quotes": [said]},
        {"kind": "contains", "value": "pytest"},
    ]
    tasks = [
        Task.from_dict(
            {
                "id": f"t{i}",
                "prompt": f"Fix the failing test {i}.",
                "split": split,
                "judges": judges,
            }
        )  # fmt: skip
        for i, split in enumerate(["train"] * 4 + ["val"] * 8 + ["test"] * 2)
    ]
    world = SimWorld.for_tasks(tasks, seed=1)
    opt = Cycles(f"- {said}", f"- {scaffold}.", f"- Report it like: {accepted}")
    roles = world.roles()
    settings = replace(SETTINGS, epochs=1, steps_per_epoch=3)
    r = optimize(world.start_skill, tasks, Roles(opt, roles.target, roles.judge), settings=settings)
    walled = {x.edits[0]["text"] for x in r.rejected if x.reason.startswith("judge firewall")}
    assert walled == {f"- {scaffold}.", f"- Report it like: {accepted}"}
    assert r.counters["firewall_rejected"] == 2
    # the correction was judged on evidence (screen or gate), never walled off
    judged = [h.edits[0].text for h in r.history] + [
        x.edits[0]["text"]
        for x in [*r.pending, *r.rejected]
        if not x.reason.startswith("judge firewall")
    ]
    assert f"- {said}" in judged


def test_reflection_prompt_fits_the_small_model_context() -> None:
    from trainer.reflect import Example

    big = SkillDoc(name="x", body="- rule number {}\n".format("word " * 30) * 300)
    fails = [Example("task " * 500, "answer " * 500, ("too long",))] * 10
    msgs = question_messages(
        big, "too long", fails, 10, fails, ["tried " * 50] * 20, max_prompt_tokens=3000
    )
    assert sum(count_tokens(m["content"]) for m in msgs) <= 3000


def test_answers_are_counted_parsed_repaired_or_unparseable() -> None:
    from trainer.scoring import read_verdict

    assert read_verdict('{"grade": 7, "reason": "ok"}') == ((0.7, "ok"), False)
    assert read_verdict('{"grade": 10, "reason": "fine') == ((1.0, "fine"), True)
    assert read_verdict('{"score": 0.25, "reason": "x"}') == ((0.25, "x"), False)
    assert read_verdict("8") == ((0.8, ""), True)  # a bare number, no grammar
    assert read_verdict("no idea") == (None, False)
    edits, recovered = read_proposals('{"edits": [{"kind": "add", "text": "- Lint."}]}')
    assert edits and not recovered
    edits, recovered = read_proposals('{"edits": [{"kind": "add", "text": "- Lint. 1.1.1')
    assert edits and edits[0].text.startswith("- Lint.") and recovered  # cut at max_tokens
    assert read_proposals('{"kind": "add", "text": "x"}')[1] is True  # a bare edit
    assert read_proposals('{"id": 1, "name": "x"}') == (None, False)
    fenced, recovered = read_proposals("```json\n{'edits': [{'kind': 'add', 'text': 'x',}]}\n```")
    assert fenced and fenced[0].text == "x" and recovered
    assert read_proposals("no json here") == (None, False)


def test_proposal_schema_is_bounded_and_anchors_come_from_the_skill() -> None:
    doc = SkillDoc(name="s", description="d", body="# Top\n\n## Rules\n\n- Be brief.\n- x\n- x\n")
    schema = proposal_schema(2, 120, doc)
    edits = schema["properties"]["edits"]
    assert edits["maxItems"] == 2 and edits["minItems"] == 1
    by_kind = {
        k: b["properties"] for b in edits["items"]["anyOf"] for k in b["properties"]["kind"]["enum"]
    }
    assert sorted(by_kind) == sorted(EDIT_KINDS)
    lines = ["# Top", "## Rules", "- Be brief."]  # "- x" occurs twice: not an anchor
    assert by_kind["add"]["anchor"]["enum"] == ["", *lines]
    # a replace or delete without an anchor cannot be written, so it cannot fail for that
    assert by_kind["replace"]["anchor"]["enum"] == lines == by_kind["delete"]["anchor"]["enum"]
    fields = list(edits["items"]["anyOf"][0]["properties"])
    assert fields.index("why") < fields.index("text") < fields.index("anchor")  # see reflect
    assert by_kind["add"]["section"]["enum"] == ["", "Top", "Rules"]
    assert all("maxLength" in by_kind["add"][k] for k in ("text", "why"))
    assert by_kind["add"]["text"]["minLength"] == 1 == by_kind["replace"]["text"]["minLength"]


def test_proposal_schema_without_a_skill_still_requires_an_anchor_to_replace() -> None:
    branches = proposal_schema(1, 40)["properties"]["edits"]["items"]["anyOf"]
    anchors = {b["properties"]["kind"]["enum"][0]: b["properties"]["anchor"] for b in branches}
    assert anchors["replace"]["minLength"] == 1 == anchors["delete"]["minLength"]
    assert "minLength" not in anchors["add"]
    blank = SkillDoc(name="s", description="d", body="- x\n- x\n")  # no unique line at all
    kinds = [
        b["properties"]["kind"]["enum"]
        for b in proposal_schema(1, 40, blank)["properties"]["edits"]["items"]["anyOf"]
    ]
    assert kinds == [["add", "description"]]


def test_anchors_are_lines_found_once_in_the_whole_body(monkeypatch) -> None:
    body = "# Top\n- run\n- run tests\n- x\n- x\n## Rules\n- lint\n"
    anchors, sections = anchor_choices(SkillDoc(name="s", description="d", body=body))
    # "- run" is also inside "- run tests"; "- x" is there twice
    assert anchors == ["# Top", "- run tests", "## Rules", "- lint"]
    assert sections == ["Top", "Rules"]
    rules = "".join(f"- rule {i:02d}.\n" for i in range(MAX_ANCHOR_CHOICES))
    assert len(anchor_choices(SkillDoc(body=rules))[0]) == MAX_ANCHOR_CHOICES
    assert anchor_choices(SkillDoc(body=rules + "- one more.\n")) is None  # too many to list
    # a skill too large to tell its lines apart within the search budget: free anchors too
    monkeypatch.setattr(reflect, "SEARCH_CHARS", 2 * len(body))
    assert anchor_choices(SkillDoc(name="s", description="d", body=body)) is None
