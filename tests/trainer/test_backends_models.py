"""Joining the embedded model's parts: real files, real distributions on sys.path, real
processes racing for the first join. The parts here are small stand-ins with the real
layout (``<dist>/data/partNN.bin`` + ``.dist-info``); the real pinned parts are checked in
test_backends_local."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from trainer.backends import models
from trainer.backends.models import LocalModelUnavailable, ModelSpec, ensure_gguf

PROJECT = Path(__file__).resolve().parents[2]
PART = 3 << 20  # 3 MB a part: big enough for two joins to overlap in time


def make_parts(root: Path, prefix: str, n: int, version: str = "1.0") -> bytes:
    """Install ``n`` fake part distributions under ``root``; returns the joined bytes."""
    joined = b""
    for i in range(1, n + 1):
        module = f"{prefix.replace('-', '_')}{i}"
        data = root / module / "data"
        data.mkdir(parents=True)
        (root / module / "__init__.py").write_text("raise ImportError('never imported')\n")
        chunk = hashlib.sha256(f"{prefix}{i}".encode()).digest() * (PART // 32)
        (data / f"part{i:02d}.bin").write_bytes(chunk)
        joined += chunk
        info = root / f"{module}-{version}.dist-info"
        info.mkdir()
        info.joinpath("METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {prefix}{i}\nVersion: {version}\n"
        )
    return joined


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModelSpec, bytes, Path]:
    site = tmp_path / "site"
    joined = make_parts(site, "fakemodel-part", 3)
    monkeypatch.syspath_prepend(str(site))
    spec = ModelSpec(
        key="fake",
        name="Fake-Model",
        quant="Q0",
        upstream="nobody/fake",
        dist_prefix="fakemodel-part",
        parts=3,
        version="1.0",
        size=len(joined),
        sha256=hashlib.sha256(joined).hexdigest(),
    )
    return spec, joined, tmp_path / "cache"


def test_first_use_joins_verifies_and_later_uses_trust_the_stamp(fake) -> None:
    spec, joined, cache = fake
    said: list[str] = []
    path = ensure_gguf(spec, cache, progress=said.append)
    assert path == cache / "Fake-Model-Q0.gguf"
    assert path.read_bytes() == joined
    assert any("joining 3 parts" in s for s in said)
    mtime = path.stat().st_mtime_ns
    said.clear()
    assert ensure_gguf(spec, cache, progress=said.append) == path
    assert said == [] and path.stat().st_mtime_ns == mtime  # no re-hash, no re-join
    assert not list(cache.glob("*.part"))


@pytest.mark.parametrize("damage", ["flip", "truncate", "stamp"])
def test_a_damaged_join_is_detected_and_redone(fake, damage: str) -> None:
    spec, joined, cache = fake
    path = ensure_gguf(spec, cache)
    if damage == "flip":  # same size, one byte changed: the stat no longer matches the stamp
        with open(path, "r+b") as f:
            f.seek(len(joined) // 2)
            f.write(bytes([joined[len(joined) // 2] ^ 0xFF]))
    elif damage == "truncate":
        with open(path, "r+b") as f:
            f.truncate(len(joined) - 1000)
    else:  # the stamp itself is lost: the file is re-hashed and kept
        models._stamp_path(path).unlink()
    said: list[str] = []
    assert ensure_gguf(spec, cache, progress=said.append) == path
    assert path.read_bytes() == joined
    assert any(s.startswith("checking") for s in said)
    assert any("joining" in s for s in said) == (damage != "stamp")


def test_a_join_killed_midway_leaves_nothing_that_looks_complete(fake) -> None:
    spec, joined, cache = fake
    cache.mkdir(parents=True)
    stale = cache / ".Fake-Model-Q0.gguf.abc123.part"
    stale.write_bytes(joined[:1000])  # what a kill -9 during a join leaves
    path = ensure_gguf(spec, cache)
    assert path.read_bytes() == joined
    assert not stale.exists()


def test_parts_that_do_not_join_to_the_pinned_hash_are_refused(fake) -> None:
    spec, _, cache = fake
    wrong = ModelSpec(**{**spec.__dict__, "sha256": "0" * 64})
    with pytest.raises(LocalModelUnavailable, match="not the pinned"):
        ensure_gguf(wrong, cache)
    assert not (cache / wrong.filename).exists()
    assert not list(cache.glob("*.part"))


def test_a_missing_or_unpinned_part_names_the_package_and_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    make_parts(site, "halfmodel-part", 2, version="2.0")
    monkeypatch.syspath_prepend(str(site))
    base = dict(key="h", name="H", quant="Q", upstream="x/h", dist_prefix="halfmodel-part")
    pinned = ModelSpec(**base, parts=2, version="1.0", size=1, sha256="0" * 64)
    with pytest.raises(LocalModelUnavailable, match=r"halfmodel-part1 is version 2\.0, not"):
        ensure_gguf(pinned, tmp_path / "cache")
    three = ModelSpec(**base, parts=3, version="2.0", size=1, sha256="0" * 64)
    with pytest.raises(LocalModelUnavailable, match=r"halfmodel-part3 is not installed.*local"):
        ensure_gguf(three, tmp_path / "cache")
    assert not (tmp_path / "cache").exists()  # nothing created before the parts are known


def test_concurrent_first_uses_join_once_and_agree(fake, tmp_path: Path) -> None:
    """Four processes ask for the model at the same moment: one joins, the others wait on
    the lock and find the verified file; nobody reads a half-written one."""
    spec, joined, cache = fake
    script = tmp_path / "use.py"
    script.write_text(
        "import sys\n"
        "from trainer.backends.models import ModelSpec, ensure_gguf\n"
        f"spec = ModelSpec(**{spec.__dict__!r})\n"
        "said = []\n"
        f"path = ensure_gguf(spec, __import__('pathlib').Path({str(cache)!r}), said.append)\n"
        "print('joined' if any('joining' in s for s in said) else 'waited', path)\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "site"), str(PROJECT)])
    procs = [
        subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env, text=True)
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(o[0] for o in outs) == ["joined", "waited", "waited", "waited"]
    assert {o[1] for o in outs} == {str(cache / spec.filename)}
    assert (cache / spec.filename).read_bytes() == joined


def test_cache_dir_follows_xdg_cache_home(tmp_path: Path) -> None:
    assert models.cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == (
        tmp_path / "skillopt-sleep" / "models"
    )
    home = models.cache_dir({"XDG_CACHE_HOME": "relative/ignored"})
    assert home == Path.home() / ".cache" / "skillopt-sleep" / "models"


def test_the_local_extra_pins_every_part_of_every_model() -> None:
    extra = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["local"]
    wanted = [r for spec in models.MODELS.values() for r in spec.requirements()]
    assert [r for r in extra if "==" in r] == wanted
    assert len(wanted) == 22 + 6
