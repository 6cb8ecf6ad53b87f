"""Per-role settings from the ``models:`` section and the environment; backend resolution."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

from trainer.backends import local
from trainer.backends.base import Roles
from trainer.backends.config import (
    RoleConfig,
    local_from_config,
    resolve_backend,
    roles_from_config,
)
from trainer.backends.factory import build_roles
from trainer.backends.openai_backend import OpenAIBackend

DEFAULT_YAML = Path(__file__).resolve().parents[1] / "configs" / "default.yaml"


def default_models() -> dict:
    return yaml.safe_load(DEFAULT_YAML.read_text())["models"]


def test_default_config_section_is_valid_and_keyless() -> None:
    models = default_models()
    roles = roles_from_config(models, {})
    assert set(roles) == {"optimizer", "target", "judge"}
    assert all(rc.api_key is None and rc.base_url is None for rc in roles.values())
    assert roles["judge"].temperature == 0.0
    assert "api_key" not in str(models).replace("api_key_env", "")
    assert resolve_backend(models, {}) == "local"


def test_per_role_env_overrides_and_openai_fallback() -> None:
    env = {
        "OPENAI_BASE_URL": "https://proxy.example/v1",
        "OPENAI_API_KEY": "sk-shared",
        "OPTIMIZER_BASE_URL": "https://big.example/v1",
        "OPTIMIZER_API_KEY": "sk-big",
        "OPTIMIZER_MODEL": "big-model",
        "JUDGE_MODEL": "judge-model",
    }
    roles = roles_from_config(default_models(), env)
    opt, tgt, jdg = roles["optimizer"], roles["target"], roles["judge"]
    assert (opt.base_url, opt.api_key, opt.model) == (
        "https://big.example/v1",
        "sk-big",
        "big-model",
    )
    assert (tgt.base_url, tgt.api_key, tgt.model) == (
        "https://proxy.example/v1",
        "sk-shared",
        "gpt-4o-mini",
    )
    assert (jdg.model, jdg.api_key) == ("judge-model", "sk-shared")
    assert "sk-" not in repr(opt) and "sk-" not in str(opt.to_dict())  # never in logs/outputs
    assert opt.to_dict()["api_key_env"] == "OPENAI_API_KEY"
    assert resolve_backend(default_models(), env) == "openai"


def test_config_base_url_beats_openai_base_url_but_not_role_env() -> None:
    cfg = {"target": {"base_url": "http://vllm:8000/v1"}}
    env = {"OPENAI_BASE_URL": "https://other/v1"}
    assert roles_from_config(cfg, env)["target"].base_url == "http://vllm:8000/v1"
    env["TARGET_BASE_URL"] = "http://ollama:11434/v1"
    assert roles_from_config(cfg, env)["target"].base_url == "http://ollama:11434/v1"
    assert roles_from_config(cfg, env)["judge"].base_url == "https://other/v1"


def test_named_key_variable_does_not_fall_back_to_openai_key() -> None:
    cfg = {"optimizer": {"api_key_env": "DEEPSEEK_API_KEY", "base_url": "https://ds/v1"}}
    roles = roles_from_config(cfg, {"OPENAI_API_KEY": "sk-openai"})
    assert roles["optimizer"].api_key is None  # never send one provider's key to another
    roles = roles_from_config(cfg, {"DEEPSEEK_API_KEY": "sk-ds", "OPENAI_API_KEY": "x"})
    assert roles["optimizer"].api_key == "sk-ds"


def test_empty_env_values_are_ignored() -> None:
    roles = roles_from_config({}, {"TARGET_MODEL": "  ", "OPENAI_API_KEY": ""})
    assert roles["target"].model == RoleConfig().model and roles["target"].api_key is None


@pytest.mark.parametrize(
    ("cfg", "message"),
    [
        ({"target": {"api_key": "sk-oops"}}, "environment variable"),
        ({"target": {"temprature": 0.1}}, "temprature"),
        ({"critic": {}}, "critic"),
        ({"judge": {"concurrency": 0}}, "concurrency"),
        ({"backend": "ollama"}, "backend"),
    ],
)
def test_bad_config_is_an_error(cfg: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        resolve_backend(cfg, {})


def test_resolve_backend_explicit_and_auto() -> None:
    assert resolve_backend({"backend": "local"}, {"OPENAI_API_KEY": "k"}) == "local"
    assert resolve_backend({"backend": "OpenAI"}, {}) == "openai"
    assert resolve_backend({}, {"JUDGE_BASE_URL": "http://x/v1"}) == "openai"
    assert resolve_backend(None, {}) == "local"


def test_build_roles_openai_points_each_role_at_its_endpoint() -> None:
    env = {"OPENAI_API_KEY": "sk-a", "TARGET_BASE_URL": "http://127.0.0.1:9/v1"}
    with build_roles(default_models(), env) as roles:
        assert all(isinstance(b, OpenAIBackend) for b in vars(roles).values())
        assert roles.target.config.base_url == "http://127.0.0.1:9/v1"
        assert roles.optimizer.config.base_url is None
        assert roles.optimizer.identity != roles.judge.identity  # temperatures differ


def test_missing_xllamacpp_gives_install_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        local.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "xllamacpp" else real(name, *a),
    )
    with pytest.raises(local.LocalModelUnavailable, match=r"pip install 'skillopt-sleep\[local\]'"):
        local.LocalServer(tmp_path / "model.gguf").start()


def test_local_section_defaults_and_mistakes() -> None:
    cfg = local_from_config(default_models())
    assert (cfg.optimizer, cfg.target) == ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b")
    assert cfg.threads is None  # measured at start
    for bad, match in [
        ({"target": "gpt-4o"}, r"models\.local\.target: unknown model 'gpt-4o'"),
        ({"threads": 0}, "threads must be null or >= 1"),
        ({"threads": "auto"}, "threads must be null or >= 1"),
        ({"parallel": 0}, "parallel must be >= 1"),
        ({"thread": 2}, "unknown models.local setting"),
    ]:
        with pytest.raises(ValueError, match=match):
            resolve_backend({"local": bad}, {})


def test_build_roles_sim_uses_the_given_world() -> None:
    class World:  # stands in for trainer.sim.SimWorld: anything with roles()
        def roles(self) -> Roles:
            return Roles(optimizer="o", target="t", judge="j")  # type: ignore[arg-type]

    with build_roles({"backend": "sim"}, {}, sim_world=World()) as roles:
        assert roles.target == "t"
    with pytest.raises(ValueError, match="sim_world"), build_roles({"backend": "sim"}, {}):
        pass


def test_explicit_backend_still_validates_roles() -> None:
    with pytest.raises(ValueError, match="temprature"):
        resolve_backend({"backend": "local", "judge": {"temprature": 1}}, {})


def test_models_local_n_ctx_has_one_rule(tmp_path: Path) -> None:
    """768 passed the config's `valid: int >= 512` and then failed the night, whose
    backend set-up held its own >= 1024: the config's line (now >= 1024, what a reflection
    prompt needs) is the only bound."""
    from skillopt_sleep import config as config_mod

    path = tmp_path / "c.yaml"
    path.write_text("models:\n  local:\n    n_ctx: 1024\n")
    cfg = config_mod.load(path, environ={})
    assert resolve_backend(cfg["models"], {}) == "local"  # what the night checks first
    assert local_from_config(cfg["models"]).n_ctx == 1024  # what the servers are started with
    path.write_text("models:\n  local:\n    n_ctx: 768\n")
    with pytest.raises(config_mod.ConfigError, match=r"models\.local\.n_ctx.*>= 1024"):
        config_mod.load(path, environ={})
