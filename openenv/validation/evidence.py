"""Immutable evidence: what the runner saw, recorded once and read by every grader.

Each record is a frozen dataclass of JSON-friendly values. :func:`write_bundle` writes the
evidence and the report as a directory of JSON files with a ``SHA256SUMS`` list; a check's
evidence lines name the files (``episodes/oracle.json``) they were read from.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

WALL_CLOCK = "<wall-clock>"


@dataclass(frozen=True)
class StepRecord:
    """One step: the action sent, and the observation, reward and done it produced (or the
    refusal message when the env refused the action)."""

    action: Mapping[str, Any]
    observation: Mapping[str, Any] | None = None
    reward: float | None = None
    done: bool = False
    refused: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class EpisodeRecord:
    """One episode played by one policy from ``reset(seed=seed, **options)``."""

    name: str
    policy: str
    seed: int
    options: Mapping[str, Any]
    reset_observation: Mapping[str, Any] | None
    steps: tuple[StepRecord, ...] = ()
    error: str | None = None
    seconds: float = 0.0

    @property
    def played(self) -> tuple[StepRecord, ...]:
        """The steps the env accepted."""
        return tuple(s for s in self.steps if s.refused is None)

    @property
    def rewards(self) -> list[float]:
        return [float(s.reward or 0.0) for s in self.played]

    @property
    def done(self) -> bool:
        return any(s.done for s in self.steps)

    @property
    def file(self) -> str:
        return f"episodes/{self.name}.json"


@dataclass(frozen=True)
class ContractRecord:
    """``check_env``'s outcome: the error that broke it, or the notes on what it could not run."""

    error: str | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServerRecord:
    """What the package's server app answered (status per path) and what it enforces."""

    app: str
    statuses: Mapping[str, int] = field(default_factory=dict)
    tools: tuple[str, ...] | None = None  # /mcp tools/list (None: the server answered an error)
    mcp_error: str | None = None
    oversize_status: int | None = None  # a /step body past the message bound
    message_limit: int | None = None
    call_timeout_s: float | None = None
    max_sessions: int | None = None
    error: str | None = None


@dataclass(frozen=True)
class HostRecord:
    """What the episodes did to the host: files they left behind, memory they grew by."""

    new_files: tuple[str, ...] = ()
    rss_growth_mb: float = 0.0
    longest_step_s: float = 0.0
    longest_episode_s: float = 0.0


DOCKER_INIT = "/usr/sbin/docker-init"
ENGINE_CHANGES = frozenset({"C /usr", "C /usr/sbin", f"A {DOCKER_INIT}"})


@dataclass(frozen=True)
class ContainerRecord:
    """The package's own image run as a container (``openenv validate --docker``): how it was
    built and started, the limits it was given (``declared``) and those the engine reports it
    runs with (``enforced``, from ``docker inspect``), and what it wrote (``docker diff``)."""

    image: str
    url: str | None = None
    build_s: float = 0.0
    startup_s: float | None = None  # None: /health never answered
    startup_bound_s: float = 30.0
    declared: Mapping[str, Any] = field(default_factory=dict)
    enforced: Mapping[str, Any] = field(default_factory=dict)
    changes: tuple[str, ...] = ()  # docker diff, "A /path" (added), "C" changed, "D" deleted
    logs_tail: str = ""
    error: str | None = None

    @property
    def outside_tmp(self) -> tuple[str, ...]:
        """The changes ``docker diff`` lists outside ``/tmp``, but for the engine's own init
        binary (``--init`` puts ``/usr/sbin/docker-init`` there, not the env)."""
        engine = ENGINE_CHANGES if f"A {DOCKER_INIT}" in self.changes else frozenset()
        return tuple(
            c
            for c in self.changes
            if c not in engine and not (c[2:] == "/tmp" or c[2:].startswith("/tmp/"))
        )


@dataclass(frozen=True)
class OracleRecord:
    """The oracle module's declarations as the runner found them (or why there is none)."""

    present: bool
    reason: str | None = None
    form: str = "script"
    scope: str = ""  # what the declaration covers, when not the whole env (Oracle.scope)
    score_range: tuple[float, float] = (0.0, 1.0)
    tolerance: float = 0.0
    floor_margin: float = 0.5
    wall_clock_fields: tuple[str, ...] = ()
    secrets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # episode -> answers
    canaries: Mapping[str, str] = field(default_factory=dict)  # name -> description
    scores: Mapping[str, float] = field(default_factory=dict)  # episode -> score


@dataclass(frozen=True)
class Evidence:
    """Everything one run collected. ``episodes`` is read-only; names are stable ids."""

    package: str
    environment: str
    episodes: Mapping[str, EpisodeRecord]
    contract: ContractRecord | None = None
    client: str | None = None  # the typed client's declaration, or the error
    client_error: str | None = None
    server: ServerRecord | None = None
    host: HostRecord = HostRecord()
    oracle: OracleRecord = OracleRecord(present=False, reason="not collected")
    concurrent_sessions: bool = True
    skipped: str | None = None  # why no runtime evidence exists (an extra not installed)
    how_to_play: str = ""  # the Environment's one line for a visitor (its class attribute)
    container: ContainerRecord | None = None  # --docker: the runtime checks ran against it

    def __post_init__(self) -> None:
        object.__setattr__(self, "episodes", MappingProxyType(dict(self.episodes)))

    def episode(self, name: str) -> EpisodeRecord | None:
        return self.episodes.get(name)


WALL_CLOCK_KEY = "x-wall-clock"


def declared_wall_clock(observation_schema: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The wall-clock paths an observation schema declares (``"x-wall-clock": [paths]``).

    An env declares them once, on its Observation model
    (``model_config = ConfigDict(json_schema_extra={"x-wall-clock": ["result.execution_time"]})``),
    so ``/schema`` carries them to validators over the wire too."""
    paths = (observation_schema or {}).get(WALL_CLOCK_KEY) or []
    return tuple(str(p) for p in paths if isinstance(p, str))


def masked(data: Any, paths: Sequence[str]) -> Any:
    """``data`` with each dotted ``path`` (``result.execution_time``) replaced by a marker."""
    if not paths or not isinstance(data, Mapping):
        return data
    out = dict(data)
    heads: dict[str, list[str]] = {}
    for path in paths:
        head, _, rest = path.partition(".")
        heads.setdefault(head, []).append(rest)
    for head, rests in heads.items():
        if head not in out:
            continue
        if "" in rests:
            out[head] = WALL_CLOCK
        else:
            out[head] = masked(out[head], rests)
    return out


def comparable(episode: EpisodeRecord, wall_clock: Sequence[str]) -> list[Any]:
    """An episode as a list to compare with another: ids and wall-clock fields masked."""
    rows: list[Any] = [_without_ids(masked(episode.reset_observation, wall_clock))]
    for step in episode.steps:
        obs = _without_ids(masked(step.observation, wall_clock))
        rows.append([dict(step.action), obs, step.reward, step.done, step.refused is not None])
    return rows


def _without_ids(obs: Any) -> Any:
    if isinstance(obs, Mapping):
        return {k: v for k, v in obs.items() if k != "episode_id"}
    return obs


def to_json(value: Any) -> Any:
    """A record as JSON data (mappings, tuples and dataclasses unwrapped; NaN as a string)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def write_bundle(directory: Path, evidence: Evidence, report: Mapping[str, Any]) -> list[str]:
    """Write ``evidence`` and ``report`` under ``directory``; return the files written."""
    files: dict[str, Any] = {"report.json": report}
    for episode in evidence.episodes.values():
        files[episode.file] = to_json(episode)
    for name in ("contract", "server", "host", "oracle"):
        files[f"{name}.json"] = to_json(getattr(evidence, name))
    if evidence.container is not None:
        files["container.json"] = to_json(evidence.container)
    sums = []
    for name, value in files.items():
        payload = (json.dumps(value, indent=2, sort_keys=True, default=str) + "\n").encode()
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(payload)
        sums.append(f"{hashlib.sha256(payload).hexdigest()}  {name}\n")
    (directory / "SHA256SUMS").write_text("".join(sums))
    return [*files, "SHA256SUMS"]
