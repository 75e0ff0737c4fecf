"""Playing one episode and recording it: the only place the validator steps an environment."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from openenv.core.environment import Environment
from openenv.core.errors import InvalidAction
from openenv.core.serialization import model_from_wire
from openenv.validation.evidence import EpisodeRecord, StepRecord
from openenv.validation.oracle import Oracle

Chooser = Callable[[Environment, Any, int], "dict[str, Any] | None"]
MAX_REFUSALS = 5  # a policy refused this many times in a row has nothing more to say


def play(
    env: Environment,
    name: str,
    policy: str,
    chooser: Chooser,
    *,
    seed: int,
    options: dict[str, Any],
    budget: int,
    on_reset: Callable[[Environment], None] | None = None,
) -> EpisodeRecord:
    """Reset ``env`` with ``seed``, then apply ``chooser``'s actions until done or ``budget``.

    ``on_reset(env)`` runs right after the reset (the validator reads the episode's answer)."""
    start = time.perf_counter()
    action_cls = type(env).wire_types()[0]
    try:
        obs = env.reset(seed=seed, **options)
        if on_reset is not None:
            on_reset(env)
    except Exception as exc:  # a crash is this episode's finding, recorded with it
        return EpisodeRecord(name, policy, seed, options, None, error=_describe(exc))
    first = _json(obs)
    steps: list[StepRecord] = []
    error = None
    refusals = 0
    for i in range(budget):
        try:
            raw = chooser(env, obs, i)
        except Exception as exc:  # the policy itself failed: say so, stop the episode
            error = f"policy {policy!r} raised {_describe(exc)}"
            break
        if raw is None or refusals >= MAX_REFUSALS:
            break
        step, obs, crash = _step(env, action_cls, raw, obs)
        steps.append(step)
        if crash is not None:
            error = f"step {i} raised {crash}"
            break
        refusals = refusals + 1 if step.refused else 0
        if step.done:
            break
    seconds = time.perf_counter() - start
    return EpisodeRecord(name, policy, seed, options, first, tuple(steps), error, seconds)


def _step(
    env: Environment, action_cls: Any, raw: dict[str, Any], obs: Any
) -> tuple[StepRecord, Any, str | None]:
    """Apply one action: (its record, the observation now, the crash that ended it, if any)."""
    began = time.perf_counter()
    action = _plain(raw)
    try:
        new = env.step(model_from_wire(raw, action_cls))
    except InvalidAction as exc:
        took = time.perf_counter() - began
        return StepRecord(action, refused=str(exc) or type(exc).__name__, seconds=took), obs, None
    except Exception as exc:  # a crash inside step ends the episode; the record says which
        took = time.perf_counter() - began
        return StepRecord(action, seconds=took), obs, _describe(exc)
    took = time.perf_counter() - began
    reward = None if new.reward is None else float(new.reward)
    return StepRecord(action, _json(new), reward, bool(new.done), None, took), new, None


def _json(obs: Any) -> dict[str, Any]:
    return json.loads(obs.model_dump_json())


def _plain(raw: Any) -> dict[str, Any]:
    return json.loads(
        json.dumps(raw.model_dump(mode="json") if hasattr(raw, "model_dump") else raw)
    )


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def random_chooser(oracle: Oracle, seed: int) -> Chooser:
    """A seeded random policy over the env's own legal actions (or the oracle's examples)."""
    # Its own stream: random.Random(seed) would replay the env's draws (the secret it picked).
    rng = random.Random(f"policy-{seed}")
    return lambda env, obs, i: oracle.random_action(env, obs, rng)


def null_chooser(oracle: Oracle) -> Chooser:
    return lambda env, obs, i: oracle.null_action(env, obs)


def oracle_chooser(oracle: Oracle) -> Chooser:
    return lambda env, obs, i: oracle.act(env, obs)


def replay_chooser(actions: list[dict[str, Any]]) -> Chooser:
    """Replays recorded ``actions`` in order."""
    return lambda env, obs, i: actions[i] if i < len(actions) else None


Player = tuple[Environment, str, int, Chooser]


def play_lockstep(
    first: Player, second: Player, *, options: dict[str, Any], budget: int
) -> tuple[EpisodeRecord, EpisodeRecord]:
    """Two sessions reset, then stepped alternately (one step each in turn), each recorded.

    Played alone, each would give the same record: anything else means they share state."""
    players = [first, second]
    observations, records = [], []
    for env, _name, seed, _ in players:
        try:
            observations.append(env.reset(seed=seed, **options))
            records.append({"first": _json(observations[-1]), "steps": [], "error": None})
        except Exception as exc:  # recorded; the other session still plays
            observations.append(None)
            records.append({"first": None, "steps": [], "error": _describe(exc)})
    live = [obs is not None for obs in observations]
    for i in range(budget):
        for k, (env, _, _, chooser) in enumerate(players):
            if not live[k]:
                continue
            raw = chooser(env, observations[k], i)
            if raw is None:
                live[k] = False
                continue
            step, observations[k], crash = _step(
                env, type(env).wire_types()[0], raw, observations[k]
            )
            records[k]["steps"].append(step)
            if crash is not None:
                records[k]["error"], live[k] = f"step {i} raised {crash}", False
            elif step.done:
                live[k] = False
        if not any(live):
            break
    a, b = (
        EpisodeRecord(name, "legal", seed, options, r["first"], tuple(r["steps"]), r["error"])
        for (_, name, seed, _), r in zip(players, records, strict=True)
    )
    return a, b
