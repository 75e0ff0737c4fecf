"""Episodes played against a running OpenEnv server, each written to ``results.jsonl`` as it
ends (what ``openenv collect`` runs).

Each episode opens its own session (``/ws``), resets with the run's options, its seed
(``seed + index``, so a resumed run plays the same episodes) and its id, then lets the
:class:`~openenv.datasets.policies.Policy` act until the episode ends or ``max_turns`` steps
were taken. Before each action it asks the server for the legal actions (``view``, answered by
servers built with this framework); other servers leave the policy the action schema.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from openenv.client.generic import GenericEnvClient
from openenv.core.errors import OpenEnvError
from openenv.datasets.policies import Choice, Policy, PolicyError, Turn
from openenv.datasets.records import EpisodeBuilder, EpisodeRecord
from openenv.datasets.results import ResultsFile

MAX_TURNS_LIMIT = 100_000


@dataclass
class CollectSettings:
    """One run: where, what, how many."""

    base_url: str
    env: str  # the family[:variant] spec, as given
    num_episodes: int = 10
    max_turns: int = 9
    episode_id_prefix: str = "ep"
    reset_options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = 0  # episode i resets with seed + i (None: the server draws)
    keep_losses: bool = True
    api_token: str | None = None
    system_prompt: str | None = None  # the teacher's instructions (default: records.system_prompt)


@dataclass
class CollectSummary:
    """What a run did (the CLI prints it; the dataset card shows the rewards)."""

    num_collected: int = 0
    num_skipped: int = 0
    num_dropped: int = 0
    num_failed: int = 0
    rewards: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def avg_reward(self) -> float:
        return sum(self.rewards) / len(self.rewards) if self.rewards else 0.0

    @property
    def success_rate(self) -> float:
        return sum(r > 0 for r in self.rewards) / len(self.rewards) if self.rewards else 0.0


def episode_ids(prefix: str, count: int) -> list[str]:
    """The planned ids of a run: ``<prefix>-000000`` … (the reference's form)."""
    return [f"{prefix}-{i:06d}" for i in range(count)]


async def fetch_action_schema(base_url: str, api_token: str | None = None) -> dict[str, Any] | None:
    """The action's JSON schema from the server's ``/schema`` (None when it has none)."""
    headers = {"Authorization": f"Bearer {api_token}"} if api_token else {}
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            response = await client.get(f"{base_url.rstrip('/')}/schema", headers=headers)
        schema = response.json().get("action") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return schema if isinstance(schema, dict) else None


async def legal_choices(env: GenericEnvClient) -> list[Choice]:
    """The legal actions the server lists now ([] when it lists none or cannot)."""
    try:
        _, legal, _ = await env.drawing()
    except (OpenEnvError, ValueError):
        return []
    return [Choice(choice.label, choice.fields()) for choice in legal]


async def play_episode(
    settings: CollectSettings,
    policy: Policy,
    episode_id: str,
    seed: int | None,
    schema: dict[str, Any] | None,
) -> EpisodeRecord:
    """One episode, start to end (or ``max_turns``), as a record."""
    options = dict(settings.reset_options)
    if seed is not None:
        options["seed"] = seed
    builder = EpisodeBuilder(settings.env, schema, settings.system_prompt)
    async with GenericEnvClient(settings.base_url, api_token=settings.api_token) as env:
        result = await env.reset(episode_id=episode_id, **options)
        observation, done, turns = result.observation, result.done, 0
        while not done and turns < settings.max_turns:
            legal = await legal_choices(env)
            builder.observe(observation, [c.label for c in legal])
            move = await asyncio.to_thread(
                policy.choose, Turn(list(builder.messages), observation, legal, schema)
            )
            result = await env.step(move.action)
            observation, done, turns = result.observation, result.done, turns + 1
            builder.act(move.action, observation, result.reward, done, move.label, move.reply)
    extra = {"env": settings.env, "seed": seed, "source": "collect", "policy": policy.name}
    return builder.record(episode_id, task=options or None, extra=extra)


async def collect(
    settings: CollectSettings,
    policy: Policy,
    results: ResultsFile,
    resume: bool = True,
    on_episode: Callable[[CollectSummary], None] = lambda summary: None,
) -> CollectSummary:
    """Play the run's episodes (skipping those ``results`` holds when ``resume``), appending
    each kept one as it ends; ``on_episode`` is called after each (the progress bar)."""
    summary = CollectSummary()
    done_ids = results.episode_ids() if resume else set()
    if not resume:
        results.set_aside()
    schema = await fetch_action_schema(settings.base_url, settings.api_token)
    for index, episode_id in enumerate(
        episode_ids(settings.episode_id_prefix, settings.num_episodes)
    ):
        if episode_id in done_ids:
            summary.num_skipped += 1
        else:
            await _one(settings, policy, results, summary, episode_id, index, schema)
        on_episode(summary)
    return summary


async def _one(
    settings: CollectSettings,
    policy: Policy,
    results: ResultsFile,
    summary: CollectSummary,
    episode_id: str,
    index: int,
    schema: dict[str, Any] | None,
) -> None:
    seed = None if settings.seed is None else settings.seed + index
    try:
        record = await play_episode(settings, policy, episode_id, seed, schema)
    except (OpenEnvError, PolicyError, OSError, ValueError, TypeError) as exc:
        summary.num_failed += 1
        summary.failures.append(f"{episode_id}: {type(exc).__name__}: {exc}")
        return
    if not settings.keep_losses and record.reward < 0:
        summary.num_dropped += 1
        return
    results.append(record)
    summary.num_collected += 1
    summary.rewards.append(record.reward)
