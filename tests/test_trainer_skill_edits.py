"""Skill documents and edits: exact anchors, sections, description, immutable name."""

from __future__ import annotations

import pytest

from trainer.edits import Edit, EditError, apply_edit, apply_edits, edit_set_hash
from trainer.skill import SkillDoc, count_tokens

DOC = SkillDoc.parse(
    "---\nname: demo\ndescription: Demo skill.\nlicense: MIT\n---\n"
    "# Rules\n\n- Run the tests.\n- Keep it short.\n\n## Notes\n\n- Note one.\n- Note one.\n"
    "\n# Other\n\nText.\n"
)


def test_parse_render_roundtrip_keeps_extra_keys() -> None:
    assert (DOC.name, DOC.description, DOC.extra) == ("demo", "Demo skill.", {"license": "MIT"})
    again = SkillDoc.parse(DOC.render())
    assert again == DOC and again.hash == DOC.hash and again.extra == DOC.extra


def test_parse_tolerates_bom_crlf_and_missing_frontmatter() -> None:
    doc = SkillDoc.parse("\ufeff---\r\nname: x\r\n---\r\nbody\r\n")
    assert doc.name == "x" and doc.body == "body\n"
    bare = SkillDoc.parse("# Just a body\n")
    assert bare.name == "" and bare.body == "# Just a body\n" and bare.render() == bare.body
    broken = SkillDoc.parse("---\n: [unclosed\n---\nbody\n")
    assert broken.name == "" and "body" in broken.body


def test_hash_diff_and_tokens_are_consistent() -> None:
    other = DOC.with_body(DOC.body + "- More.\n")
    assert other.hash != DOC.hash
    assert "+- More." in DOC.diff(other)
    assert count_tokens("Run the tests, then lint.") == 7
    assert DOC.n_tokens == count_tokens(DOC.render())


def test_add_after_anchor_and_at_end() -> None:
    new = apply_edit(DOC, Edit("add", text="- Lint too.", anchor="- Run the tests."))
    assert "- Run the tests.\n- Lint too.\n- Keep it short." in new.body
    end = apply_edit(DOC, Edit("add", text="- Last."))
    assert end.body.endswith("Text.\n- Last.\n")


def test_add_at_end_of_section() -> None:
    new = apply_edit(DOC, Edit("add", text="- Note two.", section="Notes"))
    assert "- Note one.\n- Note two.\n\n# Other" in new.body
    rules = apply_edit(DOC, Edit("add", text="- Third.", section="## rules"))
    # "# Rules" ends where the next heading of the same or higher level starts
    assert "- Note one.\n- Third.\n\n# Other" in rules.body
    with pytest.raises(EditError, match="not found"):
        apply_edit(DOC, Edit("add", text="x", section="Missing"))


def test_anchor_must_match_exactly_once() -> None:
    with pytest.raises(EditError, match="not found"):
        apply_edit(DOC, Edit("replace", text="y", anchor="- Run the test."))
    with pytest.raises(EditError, match="ambiguous: it occurs 2 times"):
        apply_edit(DOC, Edit("delete", anchor="- Note one."))
    _, applied, failed = apply_edits(
        DOC, [Edit("delete", anchor="- Note one."), Edit("delete", anchor="- Keep it short.")]
    )
    assert [e.anchor for e in applied] == ["- Keep it short."]
    assert failed[0][0].anchor == "- Note one." and "ambiguous" in failed[0][1]


def test_replace_and_delete() -> None:
    rep = apply_edit(DOC, Edit("replace", text="- Run all tests.", anchor="- Run the tests."))
    assert "- Run all tests.\n" in rep.body and "Run the tests" not in rep.body
    gone = apply_edit(DOC, Edit("delete", anchor="- Keep it short."))
    assert "Keep it short" not in gone.body and "- Run the tests.\n\n## Notes" in gone.body
    # a line between blank lines (a section heading) leaves one blank line, not two
    heading = apply_edit(DOC, Edit("delete", anchor="## Notes"))
    assert "- Keep it short.\n\n- Note one." in heading.body
    title = apply_edit(DOC, Edit("delete", anchor="# Rules"))
    assert title.body.startswith("- Run the tests.")


def test_an_edit_that_adds_nothing_new_is_not_applied() -> None:
    """The embedded optimizer often re-proposes a line the skill already has (or replaces a
    heading with one): applied, it would spend a comparison to learn nothing."""
    for edit in (
        Edit("add", text="- run the tests", section="Rules"),  # case and end punctuation aside
        Edit("replace", text="- Keep it short.", anchor="- Run the tests."),
        Edit("add", text="- Run the tests.\n\n- Keep it short."),
    ):
        with pytest.raises(EditError, match="nothing new"):
            apply_edit(DOC, edit)
    grown = apply_edit(
        DOC, Edit("add", text="- Run the tests.\n- Say which failed.", section="Rules")
    )
    assert "- Say which failed." in grown.body
    part = apply_edit(DOC, Edit("add", text="Run the", section="Rules"))  # part of a line
    assert part.body.count("Run the") == 2


def test_description_is_its_own_kind_and_name_is_immutable() -> None:
    new = apply_edit(DOC, Edit("description", text="  Use for   demos. "))
    assert new.description == "Use for demos." and new.body == DOC.body and new.name == "demo"
    with pytest.raises(EditError, match="immutable"):
        apply_edit(DOC, Edit("name", text="other"))
    bare = SkillDoc(body="Intro.\n# Body\n")
    with pytest.raises(EditError, match="frontmatter"):
        apply_edit(bare, Edit("replace", anchor="Intro.", text="---\nname: evil\n---\n"))
    with pytest.raises(EditError, match="unknown edit kind"):
        apply_edit(DOC, Edit("rewrite", text="x"))


def test_edit_hash_is_normalized() -> None:
    a = Edit("add", text="- Run  the tests.", anchor="x", rationale="one")
    b = Edit("add", text="- run the tests", anchor="x ", rationale="two")
    assert a.hash == b.hash
    assert a.hash != Edit("add", text="- Run the tests.", anchor="y").hash
    c = Edit("add", text="- Lint.")
    assert edit_set_hash([a, c]) == edit_set_hash([c, b]) and edit_set_hash([a]) == a.hash
    assert Edit("replace", text="a b", anchor="c").changed_tokens == 3
