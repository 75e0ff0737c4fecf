"""One episode as a record: the fields of ``openenv collect``'s ``results.jsonl``.

Every source of episodes (a teacher model or a scripted policy through ``openenv collect``, a
visitor playing in the playground) writes the same record, so their datasets mix:

- ``episode_id``: unique within a run (``<prefix>-000007``, or ``demo-…``);
- ``messages``: the episode as a chat (``system``: the env and how to act; ``user``: each
  observation as JSON; ``assistant``: each action as JSON), ready for an SFT trainer;
- ``reward``: the last reward the env gave (the reference's meaning: a game's outcome, a
  task's score); ``metrics["return"]`` is the sum over the episode; ``done``: it ended;
- ``tool_trace``: one entry per step, ``{"tool_name": "step", "arguments": action,
  "result": {"data": observation, "done", "metadata": {"reward", "label"?}, "error"}}``;
- ``metrics`` (steps, return), ``verify_metrics`` and ``artifacts`` (empty here; kept
  for the reference's schema), ``task`` (the reset options), ``extra`` (env, seed, source,
  policy, and a visitor's mark and note).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

MAX_CONTENT_CHARS = 32_000  # one message's text (a frame's pixels are cut, and say so)
STEP_TOOL = "step"


class EpisodeRecord(BaseModel):
    """One collected episode (see the module docstring for each field)."""

    episode_id: str
    messages: list[dict[str, Any]]
    reward: float
    done: bool
    tool_trace: list[dict[str, Any]] = Field(default_factory=list)
    metrics: dict[str, Any] = Field(default_factory=dict)
    verify_metrics: dict[str, Any] = Field(default_factory=dict)
    artifacts: dict[str, Any] = Field(default_factory=dict)
    task: Any = None
    extra: dict[str, Any] = Field(default_factory=dict)

    def to_line(self) -> str:
        """The record as one line of ``results.jsonl`` (no newline)."""
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False, default=str)


def as_text(value: Any) -> str:
    """``value`` as compact JSON text, cut to MAX_CONTENT_CHARS (with a note saying so)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= MAX_CONTENT_CHARS:
        return text
    return text[:MAX_CONTENT_CHARS] + f"… [cut: {len(text)} characters]"


def system_prompt(env: str, action_schema: dict[str, Any] | None) -> str:
    """The ``system`` message: which env, and that each reply is one action as JSON."""
    lines = [
        f"You are acting in the OpenEnv environment {env!r}.",
        "Each user message is the current observation as JSON. Reply with exactly one action:",
        "a JSON object with the action's fields, or the number of one of the listed legal actions.",
    ]
    if action_schema:
        lines.append("Action schema: " + as_text(action_schema))
    return "\n".join(lines)


def observation_message(observation: dict[str, Any], legal: list[str] | None = None) -> str:
    """A ``user`` message: the observation as JSON, and the numbered legal actions if known."""
    text = as_text(observation)
    if legal:
        text += "\nLegal actions: " + "; ".join(f"{i}: {label}" for i, label in enumerate(legal))
    return text


class EpisodeBuilder:
    """Accumulates one episode's steps into an :class:`EpisodeRecord`."""

    def __init__(
        self, env: str, action_schema: dict[str, Any] | None = None, system: str | None = None
    ) -> None:
        system = system or system_prompt(env, action_schema)
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        self.tool_trace: list[dict[str, Any]] = []
        self.rewards: list[float] = []
        self.done = False

    def observe(self, observation: dict[str, Any], legal: list[str] | None = None) -> None:
        """The observation the next action answers (the reset's, then each step's)."""
        self.messages.append({"role": "user", "content": observation_message(observation, legal)})

    def act(
        self,
        action: dict[str, Any],
        observation: dict[str, Any],
        reward: float | None,
        done: bool,
        label: str | None = None,
        reply: str | None = None,
    ) -> None:
        """One step taken: ``reply`` is what the policy said (the action's JSON by default)."""
        self.messages.append({"role": "assistant", "content": reply or as_text(action)})
        metadata: dict[str, Any] = {"reward": reward}
        if label:
            metadata["label"] = label
        result = {"data": observation, "done": done, "metadata": metadata, "error": None}
        self.tool_trace.append({"tool_name": STEP_TOOL, "arguments": action, "result": result})
        self.rewards.append(float(reward or 0.0))
        self.done = done

    def record(
        self, episode_id: str, task: Any = None, extra: dict[str, Any] | None = None
    ) -> EpisodeRecord:
        """The finished record (the episode may be cut by a turn limit: ``done`` says)."""
        total = sum(self.rewards)
        final = self.rewards[-1] if self.rewards else 0.0
        return EpisodeRecord(
            episode_id=episode_id,
            messages=list(self.messages),
            reward=final,
            done=self.done,
            tool_trace=list(self.tool_trace),
            metrics={"steps": len(self.rewards), "return": total},
            task=task,
            extra=dict(extra or {}),
        )


def record_from_steps(
    episode_id: str,
    env: str,
    first_observation: dict[str, Any],
    steps: list[dict[str, Any]],
    *,
    task: Any = None,
    extra: dict[str, Any] | None = None,
    action_schema: dict[str, Any] | None = None,
) -> EpisodeRecord:
    """A record from an episode's steps as the playground keeps them (``{"action",
    "observation", "reward", "done", "label"?}``), after ``first_observation``."""
    builder = EpisodeBuilder(env, action_schema)
    builder.observe(first_observation)
    for n, step in enumerate(steps):
        builder.act(
            step.get("action") or {},
            step.get("observation") or {},
            step.get("reward"),
            bool(step.get("done")),
            label=step.get("label"),
        )
        if n < len(steps) - 1:
            builder.observe(step.get("observation") or {})
    return builder.record(episode_id, task=task, extra=extra)
