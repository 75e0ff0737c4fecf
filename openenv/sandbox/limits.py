"""The budget of one sandbox (:class:`SandboxLimits`): what all its processes together may
use, read from ``CODING_*`` variables and from the ``sandbox:`` block of an env package's
``openenv.yaml``."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SandboxLimits:
    """The budget of one sandbox: what all its processes together may use.

    ``from_env`` reads ``CODING_*`` variables; :meth:`for_package` starts from the ``sandbox:``
    block of an env package's ``openenv.yaml`` (see the env's README), which the variables then
    override."""

    timeout_s: float = 10.0  # wall clock per run (step)
    cpu_s: int = 10  # CPU seconds per run, of each process
    memory_mb: int = 512  # all the sandbox's processes together (and any one's address space)
    file_size_mb: int = 16  # largest file the code may write
    processes: int = 64  # processes and threads at once
    output_bytes: int = 32_000  # stdout / stderr returned per run (the rest is cut)
    cpu_budget_s: int = 3600  # CPU seconds for the whole episode, all processes together
    network: bool = False  # may the code use the network (CODING_NETWORK=on)
    disk_mb: int = 256  # the working directory, /tmp and /dev/shm together (one tmpfs)
    allow_unisolated: bool = False  # run code where no namespace can be made (unsafe)
    loopback: bool = False  # without network: a loopback interface of its own, up (forward())

    def __post_init__(self) -> None:
        if self.disk_mb < 1:  # tmpfs reads size=0 as "no limit"
            raise ValueError(f"disk_mb must be at least 1 (MiB), got {self.disk_mb}")
        if self.memory_mb < 32:
            raise ValueError(f"memory_mb must be at least 32 (MiB), got {self.memory_mb}")
        for name in ("timeout_s", "cpu_s", "file_size_mb", "processes", "cpu_budget_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] = os.environ, base: Mapping[str, object] | None = None
    ) -> SandboxLimits:
        """The limits from ``CODING_*`` variables, over ``base`` (field values) or the
        defaults."""
        values: dict = dict(base or {})
        values["network"] = on_off(environ, "CODING_NETWORK")
        values["allow_unisolated"] = on_off(environ, "CODING_ALLOW_UNISOLATED")
        for field_name, (var, kind) in _VARIABLES.items():
            raw = environ.get(var)
            if not raw and var == "CODING_DISK_MB":
                raw, var = environ.get("CODING_TMP_MB"), "CODING_TMP_MB"
            if raw:
                try:
                    values[field_name] = kind(raw)
                except ValueError:
                    raise ValueError(f"${var} must be a number, got {raw!r}") from None
        return cls(**values)

    @classmethod
    def for_package(cls, package: str, environ: Mapping[str, str] = os.environ) -> SandboxLimits:
        """The limits of an env package: its manifest's ``sandbox:`` block, then ``CODING_*``."""
        return cls.from_env(environ, manifest_limits(package))

    def describe(self) -> list[tuple[str, str]]:
        """(limit, value) rows, as the READMEs show them."""
        return [
            ("memory, all processes together", f"{self.memory_mb} MiB"),
            ("disk: working directory, /tmp and /dev/shm together", f"{self.disk_mb} MiB"),
            ("processes and threads", str(self.processes)),
            ("CPU time per step, per process", f"{self.cpu_s} s"),
            ("CPU time per episode, all processes together", f"{self.cpu_budget_s} s"),
            ("wall clock per step", f"{self.timeout_s:g} s"),
            ("largest file", f"{self.file_size_mb} MiB"),
            ("output kept per step", f"{self.output_bytes} bytes"),
        ]


_VARIABLES: dict[str, tuple[str, type]] = {
    "timeout_s": ("CODING_TIMEOUT_S", float),
    "cpu_s": ("CODING_CPU_S", int),
    "memory_mb": ("CODING_MEMORY_MB", int),
    "file_size_mb": ("CODING_FILE_SIZE_MB", int),
    "processes": ("CODING_MAX_PROCESSES", int),
    "output_bytes": ("CODING_OUTPUT_BYTES", int),
    "cpu_budget_s": ("CODING_CPU_BUDGET_S", int),
    "disk_mb": ("CODING_DISK_MB", int),  # CODING_TMP_MB, its older name, is read too
}
_MANIFEST_KEYS = {name: kind for name, (_, kind) in _VARIABLES.items()}


def manifest_limits(package: str) -> dict[str, object]:
    """The ``sandbox:`` block of an env package's ``openenv.yaml``, checked (unknown names and
    values that are not numbers are refused: a typo must not leave a limit at its default)."""
    from openenv.core.manifest import MANIFEST, Manifest

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{package!r} is not an installed env package")
    path = Path(next(iter(spec.submodule_search_locations))) / MANIFEST
    block = (Manifest.read(path, package).model_extra or {}).get("sandbox") or {}
    if not isinstance(block, dict):
        raise ValueError(f"{path}: 'sandbox' must be a mapping of limits")
    values: dict[str, object] = {}
    for key, value in block.items():
        kind = _MANIFEST_KEYS.get(key)
        if kind is None:
            known = ", ".join(sorted(_MANIFEST_KEYS))
            raise ValueError(f"{path}: unknown sandbox limit {key!r} (known: {known})")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{path}: sandbox limit {key} must be a number, got {value!r}")
        values[key] = kind(value)
    return values


def on_off(environ: Mapping[str, str], var: str) -> bool:
    """``$var`` as a switch: "on" or "off" (the default, also when empty); else ValueError."""
    value = environ.get(var, "off").strip().lower() or "off"
    if value not in ("off", "on"):
        raise ValueError(f"${var} must be 'off' (the default) or 'on', got {value!r}")
    return value == "on"
