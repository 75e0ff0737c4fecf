"""The pure manifest parser: ``openenv.yaml``'s ``validation:`` block as a :class:`ValidationSpec`.

The block has the reference's shape (RFC 008; see ``docs`` of ``openenv`` 0.10): ``reward``
(``range``, ``oracle_tolerance``, ``floor_margin``), ``resources`` (``cpu``, ``memory_mb``,
``disk_mb``, ``episode_timeout_s``), ``capabilities`` (``oracle``, ``canaries``,
``declared_tools``, ...), ``network`` and ``execution``. Parsing reads the file only; no package
code runs. A package without the block is still validated: the env's oracle module supplies
the reward facts and the resources fall back to :data:`DEFAULT_RESOURCES` (the report says so).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

MAX_ORACLE_TOLERANCE = 0.1  # policy bounds on what an author may declare (the reference's v2)
MIN_FLOOR_MARGIN = 0.1
MAX_EPISODE_TIMEOUT_S = 3600.0
DEFAULT_ORACLE_MODULE = "server/oracle.py"


class Resources(BaseModel):
    """Declared resources of one env server."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    cpu: float = Field(default=1.0, gt=0)
    memory_mb: int = Field(default=2048, gt=0)
    disk_mb: int = Field(default=512, gt=0)
    episode_timeout_s: float = Field(default=300.0, gt=0)
    pids: int = Field(default=256, gt=0)  # processes and threads (the reference runs with 256)


DEFAULT_RESOURCES = Resources()


class ValidationSpec(BaseModel):
    """What the package declares for validation (``declared`` is False without the block)."""

    model_config = ConfigDict(frozen=True)

    declared: bool = False
    reward_range: tuple[float, float] | None = None
    oracle_tolerance: float | None = None
    floor_margin: float | None = None
    resources: Resources | None = None
    declared_tools: tuple[str, ...] | None = None
    oracle_location: str = DEFAULT_ORACLE_MODULE
    canaries_location: str | None = None
    network_mode: str = "public"
    errors: tuple[str, ...] = ()

    @property
    def effective_resources(self) -> Resources:
        return self.resources or DEFAULT_RESOURCES


def read_spec(package_root: Path) -> ValidationSpec:
    """Parse ``package_root/openenv.yaml``'s ``validation:`` block; never raises on its content."""
    try:
        raw = yaml.safe_load((package_root / "openenv.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        return ValidationSpec(errors=(f"openenv.yaml cannot be read: {exc}",))
    block = raw.get("validation") if isinstance(raw, dict) else None
    if block is None:
        return ValidationSpec()
    if not isinstance(block, dict):
        return ValidationSpec(declared=True, errors=("`validation:` must be a mapping",))
    errors: list[str] = []
    fields: dict[str, Any] = {"declared": True}
    _read_reward(block.get("reward"), fields, errors)
    _read_resources(block.get("resources"), fields, errors)
    _read_capabilities(block.get("capabilities"), fields, errors)
    _read_judge(block, errors)
    network = block.get("network")
    if isinstance(network, dict) and isinstance(network.get("mode"), str):
        fields["network_mode"] = network["mode"]
    return ValidationSpec(**fields, errors=tuple(errors))


def _read_reward(reward: Any, fields: dict[str, Any], errors: list[str]) -> None:
    if not isinstance(reward, dict):
        errors.append("validation.reward is missing: declare range, oracle_tolerance, floor_margin")
        return
    span = reward.get("range")
    if isinstance(span, list | tuple) and len(span) == 2 and all(_number(x) for x in span):
        fields["reward_range"] = (float(span[0]), float(span[1]))
    elif span is not None:
        errors.append(f"validation.reward.range must be [low, high], got {span!r}")
    for key in ("oracle_tolerance", "floor_margin"):
        value = reward.get(key)
        if _number(value):
            fields[key] = float(value)
        elif value is not None:
            errors.append(f"validation.reward.{key} must be a number, got {value!r}")


def _read_resources(resources: Any, fields: dict[str, Any], errors: list[str]) -> None:
    if resources is None:
        return
    try:
        fields["resources"] = Resources.model_validate(resources)
    except ValueError as exc:
        errors.append(f"validation.resources: {exc}")


def _read_capabilities(caps: Any, fields: dict[str, Any], errors: list[str]) -> None:
    if caps is None:
        return
    if not isinstance(caps, dict):
        errors.append("validation.capabilities must be a mapping")
        return
    tools = caps.get("declared_tools") or []  # a block without the key declares no tools
    fields["declared_tools"] = tuple(str(tool) for tool in tools if isinstance(tools, list))
    oracle = caps.get("oracle")
    if isinstance(oracle, dict) and isinstance(oracle.get("location"), str):
        fields["oracle_location"] = oracle["location"]
    if isinstance(caps.get("canaries"), str):
        fields["canaries_location"] = caps["canaries"]


def _read_judge(block: dict[str, Any], errors: list[str]) -> None:
    """An LLM-judged reward pins its judge (model, version, params) and a variance tolerance."""
    caps = block.get("capabilities")
    judged = isinstance(caps, dict) and caps.get("llm_judged") is True
    judge = block.get("judge")
    if not judged:
        if judge is not None:
            errors.append("validation.judge is declared but capabilities.llm_judged is false")
        return
    if not isinstance(judge, dict) or not all(
        isinstance(judge.get(key), str) and judge[key] for key in ("model", "version")
    ):
        errors.append(
            "validation.judge must pin the judge (model, version, params) when "
            "capabilities.llm_judged is true"
        )
    elif not isinstance(judge.get("params", {}), dict):
        errors.append("validation.judge.params must be a mapping")
    reward = block.get("reward")
    if not (isinstance(reward, dict) and _number(reward.get("variance_tolerance"))):
        errors.append(
            "validation.reward.variance_tolerance is required when capabilities.llm_judged is true"
        )


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
