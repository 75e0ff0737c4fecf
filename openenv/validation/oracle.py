"""What an env tells its validator beyond the contract: ``envs/<name>_env/server/oracle.py``.

Each env package ships one module that defines ``ORACLE``, an :class:`Oracle`:

- :meth:`Oracle.act` plays the episode to its best outcome. An oracle may read the env's
  private state (``env._board``, the hidden word): it is a solver, not an agent, and it runs only
  inside the validator.
- :meth:`Oracle.example_actions`: actions the runtime checks may play when the env offers no
  legal actions of its own (free-text envs); otherwise the env's ``legal_actions()`` are used,
  never a guess from the action schema.
- :meth:`Oracle.canaries`: known-bad behaviours (illegal moves, empty answers, format hacks)
  that must score at the floor.
- :meth:`Oracle.secrets`: the answer of the current episode, which observations must never carry.
- :attr:`Oracle.scope`: what the declared maximum, floor and canaries cover when the env
  offers more than the oracle plays (Atari: Pong of its many games); the report says so.
- :attr:`Oracle.wall_clock_fields`: observation fields that legitimately differ between two
  runs of the same episode (timings); determinism checks compare everything else and the report
  names them.

The validator, not the oracle, steps the env: it asks the oracle for an action, applies it and
records what happened (:mod:`openenv.validation.runner`).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from openenv.core.environment import Environment

Act = Callable[[Environment, Any, int], "dict[str, Any] | None"]


@dataclass(frozen=True)
class Canary:
    """A known-bad behaviour: ``act(env, observation, step)`` gives its next action (None: stop)."""

    name: str
    description: str
    act: Act = field(repr=False)

    @classmethod
    def repeat(cls, name: str, description: str, action: dict[str, Any]) -> Canary:
        """A canary that sends the same ``action`` at every step."""
        return cls(name, description, lambda env, obs, i: dict(action))

    @classmethod
    def sequence(cls, name: str, description: str, actions: Sequence[dict[str, Any]]) -> Canary:
        """A canary that sends ``actions`` in order, then stops."""
        steps = [dict(a) for a in actions]
        return cls(name, description, lambda env, obs, i: steps[i] if i < len(steps) else None)


class Oracle:
    """The validator's facts and solver for one environment (subclass it in ``server/oracle.py``).

    Scores: an episode's score is :meth:`score` of its rewards (default: the last reward, the
    outcome most envs put on their final step). ``score_range`` is (floor, maximum) of that
    score; ``tolerance`` is how far below the maximum the oracle may land; a random or null
    policy must score at least ``floor_margin`` below the maximum. (The ``validation:`` block's
    ``reward.range`` bounds each step's reward; the episode score is defined here.)
    """

    score_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    tolerance: ClassVar[float] = 0.0
    floor_margin: ClassVar[float] = 0.5
    reset_options: ClassVar[dict[str, Any]] = {}
    wall_clock_fields: ClassVar[tuple[str, ...]] = ()
    max_steps: ClassVar[int] = 200  # the oracle's episode budget
    probe_steps: ClassVar[int] = 20  # the budget of runtime and random-policy episodes
    form: ClassVar[str] = "script"  # "script" (plays the public API) or "injected_state"
    # What the declaration covers when the env offers more than the oracle's episodes play
    # (one game of many, one task family): the report names it beside the oracle's score.
    scope: ClassVar[str] = ""

    def unavailable(self) -> str | None:
        """Why the oracle cannot run here (a missing extra), or None."""
        return None

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        """The oracle's next action for ``env`` (None: it has nothing left to do)."""
        raise NotImplementedError

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        """Actions runtime checks may play when the env offers no legal actions."""
        return []

    def random_action(self, env: Any, observation: Any, rng: random.Random) -> dict | None:
        """A random policy's action: a legal action, a slider draw or an example action."""
        choices = env.legal_actions()
        if choices:
            return rng.choice(choices).fields()
        sliders = env.action_sliders()
        if sliders is not None:
            return sliders.action_for(sliders.sample(rng))
        examples = self.example_actions(env, observation)
        return rng.choice(examples) if examples else None

    def null_action(self, env: Any, observation: Any) -> dict[str, Any] | None:
        """The null policy's action: always the first thing offered (a no-op where one exists)."""
        choices = env.legal_actions()
        if choices:
            return choices[0].fields()
        sliders = env.action_sliders()
        if sliders is not None:
            return sliders.action_for(sliders.start)
        examples = self.example_actions(env, observation)
        return examples[0] if examples else None

    def canaries(self) -> list[Canary]:
        """Known-bad behaviours that must score at the floor."""
        return []

    def secrets(self, env: Any) -> list[str]:
        """The current episode's answer(s): text no observation may carry before the end."""
        return []

    def score(self, rewards: Sequence[float]) -> float:
        """An episode's score from its step rewards (default: the final reward)."""
        return float(rewards[-1]) if rewards else 0.0

    def score_episode(self, episode: Any) -> float:
        """An episode's score from its whole record (default: :meth:`score` of its rewards);
        override it when the outcome is in the observation (``won``), not in the reward."""
        return self.score(episode.rewards)


def module_name(package: str, location: str) -> str:
    """``("maze_env", "server/oracle.py")`` -> ``"maze_env.server.oracle"``."""
    path = location.removesuffix(".py").strip("/").replace("/", ".")
    return f"{package}.{path}"


def load_oracle(package: str, location: str) -> Oracle | None:
    """The ``ORACLE`` of ``package``'s oracle module, or None when it ships none."""
    name = module_name(package, location)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None  # the module itself is absent (not something it imports)
        raise
    oracle = getattr(module, "ORACLE", None)
    if not isinstance(oracle, Oracle):
        raise TypeError(f"{name} must define ORACLE = <an openenv.validation.oracle.Oracle>")
    return oracle
