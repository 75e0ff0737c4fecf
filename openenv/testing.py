"""Conformance checks that any environment can run: ``check_env(env)``.

Modelled on Gymnasium's env checker: it exercises the contract written in
:class:`openenv.core.Environment` and raises :class:`EnvCheckError` with a message saying what
to fix. It returns a list of notes about checks it could not run (e.g. no episode ended).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from openenv.core import (
    Action,
    ActionChoice,
    ActionSliders,
    Board,
    Environment,
    Frame,
    InvalidAction,
    Observation,
    ResetNeeded,
    State,
    Svg,
    Text,
)
from openenv.core.rubrics.components import TOLERANCE, weighted_total
from openenv.core.serialization import model_from_wire, observation_to_wire, step_result_from_wire


class EnvCheckError(AssertionError):
    """The environment breaks the contract; the message says how."""


ActionSource = Callable[[Environment, random.Random], Any]


def check_env(
    env: Environment,
    *,
    seed: int = 7,
    steps: int = 30,
    actions: ActionSource | None = None,
    reset_kwargs: dict[str, Any] | None = None,
) -> list[str]:
    """Check ``env`` against the Environment contract; return notes on skipped checks.

    ``actions(env, rng)`` picks the next action; by default a seeded choice among
    ``legal_actions()``, else random values of ``action_sliders()``. ``reset_kwargs`` are
    extra reset options used for every reset.
    """
    notes: list[str] = []
    action_cls, obs_cls, _ = type(env).wire_types()
    _require(
        action_cls is not None and obs_cls is not None,
        f"{type(env).__name__} must subclass Environment[ActionCls, ObservationCls, StateCls]",
    )
    kwargs = dict(reset_kwargs or {})
    pick = actions or _pick_legal

    _check_step_before_reset(env, action_cls, pick)
    _check_unknown_reset_option(env)
    first = _check_reset(env, obs_cls, seed, kwargs)
    _check_state(env)
    _check_hooks(env, action_cls)
    again = env.reset(seed=seed, **kwargs)
    _require(
        _dump(first) == _dump(again),
        "reset(seed=s) twice gave different observations; draw randomness from self.rng",
    )
    run_a = _rollout(env, pick, seed, kwargs, steps, action_cls, obs_cls)
    run_b = _rollout(env, pick, seed, kwargs, steps, action_cls, obs_cls)
    _require(run_a == run_b, _first_difference(run_a, run_b))
    if not run_a:
        notes.append("no actions available: step determinism not checked")
    _check_after_done(env, pick, seed, kwargs, action_cls, notes)
    env.close()
    env.close()
    return notes


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise EnvCheckError(message)


def _dump(obs: Observation) -> str:
    return obs.model_dump_json()


def _pick_legal(env: Environment, rng: random.Random) -> Any:
    choices = env.legal_actions()
    if choices:
        return rng.choice(choices).action
    sliders = env.action_sliders()
    return None if sliders is None else sliders.action_for(sliders.sample(rng))


def _as_action(raw: Any, action_cls: type[Action]) -> Action:
    return model_from_wire(raw, action_cls)


def _check_step_before_reset(
    env: Environment, action_cls: type[Action], pick: ActionSource
) -> None:
    try:
        env.step(action_cls.model_construct())
    except ResetNeeded:
        return
    except Exception as exc:  # the check reports any other outcome as a contract breach
        raise EnvCheckError(f"step() before reset() must raise ResetNeeded, got {exc!r}") from exc
    raise EnvCheckError("step() before reset() must raise ResetNeeded, it returned normally")


def _check_unknown_reset_option(env: Environment) -> None:
    if type(env).accepts_any_reset_option():
        return
    try:
        env.reset(seed=0, definitely_not_an_option=1)
    except InvalidAction:
        return
    raise EnvCheckError("reset() with an unknown option must raise InvalidAction")


def _check_reset(env: Environment, obs_cls: type, seed: int, kwargs: dict) -> Observation:
    obs = env.reset(seed=seed, **kwargs)
    _require(
        isinstance(obs, obs_cls), f"reset() returned {type(obs).__name__}, not {obs_cls.__name__}"
    )
    _check_round_trip(obs, obs_cls)
    _require(not obs.done, "reset() returned an observation with done=True")
    return obs


def _check_round_trip(obs: Observation, obs_cls: type) -> None:
    wire = json.loads(json.dumps(observation_to_wire(obs)))
    back = step_result_from_wire(wire, obs_cls).observation
    _require(
        back.model_dump(mode="json") == obs.model_dump(mode="json"),
        f"{obs_cls.__name__} does not survive a JSON round trip: use JSON-friendly fields",
    )


def _check_state(env: Environment) -> None:
    state = env.state
    _require(isinstance(state, State), f"state returned {type(state).__name__}, not a State")
    dumped = json.loads(state.model_dump_json())
    _require(
        type(state).model_validate(dumped).model_dump(mode="json") == dumped,
        "state does not survive a JSON round trip",
    )
    _require(state.step_count == 0, f"state.step_count is {state.step_count} right after reset")


def _check_hooks(env: Environment, action_cls: type[Action]) -> None:
    view = env.render()
    _require(
        view is None or isinstance(view, Frame | Board | Text | Svg),
        f"render() returned {type(view).__name__}; return a Frame, Board, Text, Svg or None",
    )
    choices = env.legal_actions()
    _require(isinstance(choices, Sequence), "legal_actions() must return a list")
    for choice in choices:
        _require(isinstance(choice, ActionChoice), "legal_actions() must return ActionChoice items")
        _as_action(choice.action, action_cls)
    sliders = env.action_sliders()
    _require(
        sliders is None or isinstance(sliders, ActionSliders),
        f"action_sliders() returned {type(sliders).__name__}; return ActionSliders or None",
    )
    if sliders is not None:
        _as_action(sliders.action_for(sliders.start), action_cls)


def _rollout(env, pick, seed, kwargs, steps, action_cls, obs_cls) -> list[tuple[str, str]]:
    env.reset(seed=seed, **kwargs)
    rng = random.Random(seed)
    trace = []
    for _ in range(steps):
        raw = pick(env, rng)
        if raw is None:
            break
        obs = env.step(_as_action(raw, action_cls))
        _require(isinstance(obs, obs_cls), f"step() returned {type(obs).__name__}")
        _check_round_trip(obs, obs_cls)
        _check_reward_components(obs)
        trace.append((json.dumps(raw, sort_keys=True, default=str), _dump(obs)))
        if obs.done:
            break
    _require(
        env.state.step_count == len(trace) or not trace,
        f"state.step_count is {env.state.step_count} after {len(trace)} steps",
    )
    return trace


def _check_reward_components(obs: Observation) -> None:
    total = weighted_total(obs.metadata)
    if total is None:
        return
    _require(
        obs.reward is not None and abs(float(obs.reward) - total) <= TOLERANCE,
        f"reward {obs.reward} != weighted total {total} of metadata['reward_components']",
    )


def _first_difference(a: list, b: list) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"same seed and actions gave different step {i}: {x[1]} vs {y[1]}"
    return f"same seed and actions gave episodes of different lengths ({len(a)} vs {len(b)})"


def _check_after_done(env, pick, seed, kwargs, action_cls, notes: list[str], budget: int = 2000):
    env.reset(seed=seed, **kwargs)
    rng = random.Random(seed)
    for _ in range(budget):
        raw = pick(env, rng)
        if raw is None:
            notes.append("no actions available: after-done behaviour not checked")
            return
        if env.step(_as_action(raw, action_cls)).done:
            break
    else:
        notes.append(f"no episode ended within {budget} steps: after-done behaviour not checked")
        return
    before = env.state.model_dump_json()
    try:
        env.step(_as_action(raw, action_cls))
    except ResetNeeded:
        _require(env.state.model_dump_json() == before, "a refused step after done changed state")
        return
    raise EnvCheckError("step() after done=True must raise ResetNeeded")
