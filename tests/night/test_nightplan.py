"""Planning a night: which skills train, and why the others do not."""

from __future__ import annotations

from pathlib import Path

import pytest
from mining_helpers import add_turn, store

from skillopt_sleep.mining import load_clusters, mine
from skillopt_sleep.night import Skip
from skillopt_sleep.night.plan import job_start, plan_night, replay_set, seed_skill
from skillopt_sleep.night.settings import NightSettings
from skillopt_sleep.promotion import spec
from skillopt_sleep.settings import config as config_mod
from trainer import TrainSettings
from trainer.skill import SkillDoc
from trainer.tasks import Task

CAP = TrainSettings().max_skill_tokens


def test_a_missing_user_skill_is_reported_once_for_all_its_clusters(tmp_path: Path) -> None:
    db = store(tmp_path)
    for i in range(6):
        add_turn(db, f"a{i}", 0, f"bump the numpy dependency to 2.{i} in pyproject", 1 + i,
                 skills=["release-helper"])  # fmt: skip
        add_turn(db, f"b{i}", 0, f"write the changelog entry for release 3.{i}", 1 + i,
                 skills=["release-helper"])  # fmt: skip
    config = config_mod.load(overrides={"promotion.targets": [str(tmp_path / "skills")]})
    mine(db, config)
    plan = plan_night(db, config, NightSettings.from_config(config))
    assert plan.jobs == ()
    skips = [s for s in plan.skipped if s.skill == "release-helper"]
    assert skips == [Skip("release-helper", "its SKILL.md is in no skill target")]


def _recurring(db, skill: str | None, prefix: str, text: str) -> None:
    """Six sessions over six days asking for the same task (using ``skill`` if given)."""
    for i in range(6):
        add_turn(db, f"{prefix}{i}", 0, f"{text} {i}", 1 + i,
                 skills=[skill] if skill else None)  # fmt: skip


def test_skills_the_night_cannot_handle_are_skipped_with_a_reason(tmp_path: Path) -> None:
    """A plugin's skill, a name that leaves the skill root, and a linked skill (dotfiles):
    the plan never fails; it reads what it can and says why it sets the rest aside."""
    db = store(tmp_path)
    _recurring(db, "superpowers:brainstorming", "a", "brainstorm names for the cache layer")
    _recurring(db, "../../etc", "b", "write the changelog entry for the release")
    _recurring(db, "review", "c", "review the pull request about the parser")
    skills, dotfiles = tmp_path / "skills", tmp_path / "dotfiles"
    (dotfiles / "review").mkdir(parents=True)
    (dotfiles / "review" / "SKILL.md").write_text("---\nname: review\ndescription: R\n---\n")
    skills.mkdir()
    (skills / "review").symlink_to(dotfiles / "review")
    config = config_mod.load(overrides={"promotion.targets": [str(skills)]}, environ={})
    mine(db, config)
    plan = plan_night(db, config, NightSettings.from_config(config))
    why = {s.skill: s for s in plan.skipped}
    assert "plugins own their skills" in why["superpowers:brainstorming"].reason
    assert "not usable as a skill folder" in why["../../etc"].reason
    assert not any(s.error for s in why.values())  # nothing the user must fix
    # the linked skill is read like any other (here its val split is too small to train)
    assert why["review"].reason.startswith("too few tasks")
    (review,) = [c for c in load_clusters(db) if c.skill == "review"]
    start = job_start(db, config, review, CAP)
    assert start["start_text"].endswith("description: R\n---\n") and not start["managed"]


def test_a_mined_name_that_is_already_a_user_skill_is_the_users(tmp_path: Path) -> None:
    """Mining saw no skill use (as for every Codex session) and named the cluster; a skill
    of that name on disk that skillopt-sleep did not create is the user's skill."""
    db = store(tmp_path)
    _recurring(db, None, "a", "bump the numpy dependency version in pyproject")
    skills = tmp_path / "skills"
    config = config_mod.load(
        overrides={"promotion.targets": [str(skills)], "night.max_skills": 5,
                   "mining.split_fractions": {"train": 0.0, "val": 1.0, "test": 0.0}},
        environ={},
    )  # fmt: skip
    mine(db, config)
    (cluster,) = [c for c in load_clusters(db) if c.recurring]
    assert cluster.managed_skill
    name = cluster.skill
    start = job_start(db, config, cluster, CAP)
    assert start["managed"] and start["start_text"].startswith(f"---\nname: {name}\n")
    (skills / name).mkdir(parents=True)
    (skills / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Mine\n---\n")
    start = job_start(db, config, cluster, CAP)
    assert not start["managed"] and "description: Mine" in start["start_text"]


def test_a_new_skills_description_from_prompts_is_cleaned(tmp_path: Path) -> None:
    text = seed_skill(
        "fix-tests", 'Use when asked "<script>x</script>\n`rm -rf`\u202e' + "a" * 2000
    )
    doc = SkillDoc.parse(text)
    assert "\n" not in doc.description and not set("<>`\u202e") & set(doc.description)
    assert len(doc.description) <= 1024 and spec.problems(text, "fix-tests") == []


def test_a_skill_whose_test_split_cannot_measure_a_lift_is_not_trained() -> None:
    """An accepted edit with fewer than 2 test tasks is never promoted: training it would
    spend the night for nothing, and a well-evidenced skill behind it must get the place."""
    from skillopt_sleep.night.model import Job
    from skillopt_sleep.night.plan import _ready
    from skillopt_sleep.promotion.verdict import MIN_TEST_TASKS
    from trainer.tasks import Judge, Task

    def job(name: str, n_test: int) -> Job:
        splits = ["train"] * 6 + ["val"] * 12 + ["test"] * n_test
        tasks = tuple(
            Task(f"{name}-{i}", f"task {i}", s, (Judge("contains", "x"),))
            for i, s in enumerate(splits)
        )
        return Job(name, True, (name,), "# s\n", {}, tasks)

    config = config_mod.load(overrides={"night.max_skills": 1})
    jobs = [job("small-test", MIN_TEST_TASKS - 1), job("measurable", 4)]
    plan = _ready(jobs, [], NightSettings.from_config(config))
    assert [j.skill for j in plan.jobs] == ["measurable"]
    (skip,) = plan.skipped
    assert skip.skill == "small-test" and "1 test task(s), the held-out lift needs >= 2" in (
        skip.reason
    )


def test_a_replay_starts_from_the_nights_text_or_says_why_not(tmp_path: Path) -> None:
    """`tasks replay` without --skill once made up a new skill for a user's skill that is
    on no skill target, which the night skips; it now asks the night's own job_start."""
    from skillopt_sleep.mining import load_tasks
    from skillopt_sleep.replay.one import ReplayError, task_skill

    db = store(tmp_path)
    _recurring(db, "release-helper", "a", "write the changelog entry for the release")
    _recurring(db, None, "b", "bump the numpy dependency version in pyproject")
    config = config_mod.load(overrides={"promotion.targets": [str(tmp_path / "skills")]},
                             environ={})  # fmt: skip
    mine(db, config)
    by_skill = {c.skill: c for c in load_clusters(db) if c.recurring}
    tasks = {t.meta["cluster_id"]: t for t in load_tasks(db)}
    user = by_skill.pop("release-helper")
    with pytest.raises(ReplayError, match="its SKILL.md is in no skill target"):
        task_skill(db, config, tasks[user.id])
    (managed,) = by_skill.values()
    start = job_start(db, config, managed, CAP)
    assert task_skill(db, config, tasks[managed.id]) == start["start_text"]


def test_a_night_replays_at_most_its_val_and_test_caps_spread_over_groups() -> None:
    """A big group of near-duplicates lands in one split whole; the night replays the cap,
    the oldest first, one group after another, and every train task."""
    tasks = [
        Task(
            f"t{g}{i}",
            f"ask {g} {i}",
            split,
            group=f"g-{g}",
            meta={"started_at": f"2026-03-{1 + i:02d}"},
        )  # fmt: skip
        for g, split, n in (("a", "val", 30), ("b", "val", 3), ("c", "test", 4), ("d", "train", 40))
        for i in range(n)
    ]
    chosen = replay_set(tasks, {"val": 6, "test": 20})
    val = [t.id for t in chosen if t.split == "val"]
    assert val == ["ta0", "tb0", "ta1", "tb1", "ta2", "tb2"]
    assert sum(t.split == "test" for t in chosen) == 4  # under its cap: all of it
    assert sum(t.split == "train" for t in chosen) == 40
    # a newer request of a group comes after the older ones: tonight's val is kept
    newer = Task("ta99", "ask a 99", "val", group="g-a", meta={"started_at": "2026-04-30"})
    assert [t.id for t in replay_set([*tasks, newer], {"val": 6, "test": 20})
            if t.split == "val"] == val  # fmt: skip


def test_the_plan_holds_the_tasks_the_night_replays(tmp_path: Path) -> None:
    db = store(tmp_path)
    for i in range(40):  # one kind, same words, each with its own log pasted
        log = "\n".join(
            f"E   AssertionError: case_{i}_{k} expected {k} got {k + i}" for k in range(4)
        )
        add_turn(db, f"s{i}", 0, f"summarize why this CI run failed\n\n{log}", 1 + i % 20, minute=i)
    config = config_mod.load(overrides={
        "promotion.targets": [str(tmp_path / "skills")],
        "mining.max_val_tasks": 8, "mining.max_test_tasks": 5,
    })  # fmt: skip
    mine(db, config)
    (job,) = plan_night(db, config, NightSettings.from_config(config)).jobs
    assert job.n_tasks["val"] <= 8 and job.n_tasks["test"] <= 5
    assert sum(job.n_tasks.values()) == 40  # the rest of the requests train
