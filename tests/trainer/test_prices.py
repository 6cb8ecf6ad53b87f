"""What tokens cost: the price table by model, a role's own prices, and an unknown price said
in doctor, at night start and in the report (never another model's price)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.health.doctor import check_cost
from skillopt_sleep.health.endpoints import cost_warning, unpriced
from skillopt_sleep.night.run import run_night
from skillopt_sleep.replay.settings import cli_settings
from skillopt_sleep.report.words import cost_sentence
from skillopt_sleep.settings import config as config_mod
from tests.night_helpers import make_root
from tests.sim_helpers import competent_roles
from trainer.backends.config import roles_from_config
from trainer.backends.prices import FREE, PRICES, Price, role_price, table_price
from trainer.harness import CLAUDE_CODE

ELSEWHERE = "https://llm.example/v1"


def load(tmp_path: Path, **overrides: object) -> dict:
    return config_mod.load(overrides={"state_dir": str(tmp_path / "s"), **overrides}, environ={})


def test_the_table_prices_a_model_and_its_dated_snapshots() -> None:
    assert table_price("gpt-4o-mini") == Price(0.15, 0.60)
    assert table_price("gpt-4o-mini-2024-07-18") == table_price("GPT-4o-mini")
    assert table_price("claude-sonnet-4-5-20250929") == PRICES["claude-sonnet-4-5"]
    assert table_price("gpt-4o") != table_price("gpt-4o-mini")  # no prefix guessing
    assert table_price("qwen2.5-coder-1.5b") == FREE and table_price("gpt-5-nano") is None


def test_a_role_price_is_its_own_else_the_tables_else_unknown() -> None:
    assert role_price("acme-9", ELSEWHERE) is None
    assert role_price("acme-9", ELSEWHERE, 1.0, 2.0) == Price(1.0, 2.0)
    assert role_price("acme-9", ELSEWHERE, 1.0) is None  # half a price is still unknown
    assert role_price("gpt-4o", None, price_out=8.0) == Price(2.50, 8.0)
    for mine in ("http://127.0.0.1:11434/v1", "http://localhost:8000/v1", "http://[::1]:8/v1"):
        assert role_price("qwen2.5-coder:7b", mine) == FREE  # the user's own server


def test_changing_the_model_alone_changes_the_price(tmp_path: Path) -> None:
    """The defaults once held gpt-4o-mini's prices for every role: `model: gpt-4o` alone
    was billed at a sixteenth of its price, and a model the table does not know as well."""
    cfg = load(tmp_path, **{"models.target.model": "gpt-4o", "models.judge.model": "acme-9"})
    roles = roles_from_config(cfg["models"], {"OPENAI_API_KEY": "sk-test"})
    assert roles["optimizer"].price == Price(0.15, 0.60)
    assert roles["target"].price == Price(2.50, 10.00)
    assert roles["judge"].price is None
    assert roles["target"].price.cost(1_000_000, 100_000) == pytest.approx(3.5)


def test_an_unknown_price_under_a_cost_budget_is_one_warning_line(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-test"}
    cfg = load(tmp_path, **{"models.target.model": "acme-9"})
    assert unpriced(cfg, env) == ["target acme-9"]
    (check,) = check_cost(cfg, env)
    assert check.status == "warn" and "\n" not in check.detail
    assert "$4" in check.detail and "target acme-9" in check.detail
    assert "models.<role>.price_in_per_mtok" in check.detail
    priced = load(tmp_path, **{"models.target.model": "acme-9",
                               "models.target.price_in_per_mtok": 0.5,
                               "models.target.price_out_per_mtok": 1.5})  # fmt: skip
    assert unpriced(priced, env) == [] and check_cost(priced, env) == []
    no_budget = load(tmp_path, **{"models.target.model": "acme-9", "budget.max_cost_usd": None})
    assert cost_warning(no_budget, env) is None and unpriced(no_budget, env) == ["target acme-9"]
    assert unpriced(load(tmp_path), {}) == []  # the embedded models cost nothing


def test_an_agent_cli_is_priced_by_its_own_model(tmp_path: Path) -> None:
    """The CLI took models.target's prices (gpt-4o-mini's by default) whatever it ran."""
    env = {"ANTHROPIC_API_KEY": "sk-test"}
    cfg = load(tmp_path, **{"models.backend": "sim", "models.target.backend": CLAUDE_CODE})
    settings = cli_settings(cfg, CLAUDE_CODE, env)
    assert settings.price_in_per_mtok is None and settings.cost(10**6, 10**6) == 0.0
    assert unpriced(cfg, env) == ["target its default model in claude-code"]
    named = load(tmp_path, **{"models.backend": "sim", "models.target.backend": CLAUDE_CODE,
                              "harness.claude_code.model": "claude-sonnet-4-5"})  # fmt: skip
    assert cli_settings(named, CLAUDE_CODE, env).cost(10**6, 10**6) == pytest.approx(18.0)
    assert unpriced(named, env) == []
    offline = cli_settings(cfg, CLAUDE_CODE, {}, local_url="http://127.0.0.1:5/v1")
    assert offline.cost(10**6, 10**6) == 0.0 and unpriced(cfg, {}) == []


def test_the_night_warns_at_start_and_the_report_says_the_cost_is_unknown(
    tmp_path: Path,
) -> None:
    config = make_root(
        tmp_path,
        user_skill=False,
        **{"night.max_skills": 1, "models.backend": "openai",
           "models.target.model": "acme-9", "models.target.base_url": ELSEWHERE},
    )  # fmt: skip
    said: list[str] = []
    outcome = run_night(config, progress=said.append, roles_factory=competent_roles)
    assert outcome.status == "done"
    warnings = [line for line in said if "no price is known" in line]
    assert len(warnings) == 1 and "target acme-9" in warnings[0]
    assert outcome.summary.usage.cost_unknown == ("target acme-9",)
    sentence = cost_sentence(outcome.summary)
    assert "cost unknown for target acme-9" in sentence
    assert "cost unknown" in outcome.reports["md"].read_text()
