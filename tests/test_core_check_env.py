"""check_env catches broken environments with a message that says what to fix."""

from __future__ import annotations

import random

import pytest
from grid_world_env.server.environment import GridWorldEnvironment
from wire_apps import ProbeAction, ProbeEnvironment, ProbeObservation, ProbeState

from openenv.core import ActionChoice, Environment, ResetNeeded
from openenv.testing import EnvCheckError, check_env


class Counter(Environment[ProbeAction, ProbeObservation, ProbeState]):
    """A correct little env: count to 3, then the episode ends."""

    def __init__(self) -> None:
        self._state = ProbeState()

    def reset(self, seed=None, episode_id=None) -> ProbeObservation:
        self._state = ProbeState(episode_id=episode_id or "e", start=self.rng.randrange(100))
        return self._observe()

    def step(self, action: ProbeAction) -> ProbeObservation:
        self._state.step_count += 1
        return self._observe(done=self._state.step_count >= 3)

    @property
    def state(self) -> ProbeState:
        return self._state

    def legal_actions(self) -> list[ActionChoice]:
        return [ActionChoice("go", {"label": "go"}), ActionChoice("wait", {"label": "wait"})]

    def _observe(self, done: bool = False) -> ProbeObservation:
        s = self._state
        return ProbeObservation(count=s.step_count, start=s.start, done=done, reward=1.0)


def test_a_correct_env_passes() -> None:
    assert check_env(Counter()) == []


def test_the_model_env_passes() -> None:
    assert check_env(GridWorldEnvironment()) == []


def test_an_env_without_actions_passes_with_notes() -> None:
    class NoChoices(Counter):
        def legal_actions(self) -> list[ActionChoice]:
            return []

    notes = check_env(NoChoices())
    assert any("step determinism not checked" in n for n in notes)


def test_reset_that_ignores_the_seed_is_caught() -> None:
    class GlobalRandomReset(Counter):
        def reset(self, seed=None, episode_id=None) -> ProbeObservation:
            self._state = ProbeState(episode_id="e", start=random.randrange(10**9))
            return self._observe()

    with pytest.raises(EnvCheckError, match=r"reset\(seed=s\) twice .* self\.rng"):
        check_env(GlobalRandomReset())


def test_steps_that_ignore_the_seed_are_caught() -> None:
    class GlobalRandomStep(Counter):
        def step(self, action: ProbeAction) -> ProbeObservation:
            self._state.step_count += 1
            self._state.start = random.randrange(10**9)
            return self._observe(done=self._state.step_count >= 3)

    with pytest.raises(EnvCheckError, match="same seed and actions gave different step 0"):
        check_env(GlobalRandomStep())


def _unguarded_step(self, action: ProbeAction) -> ProbeObservation:
    """A step that checks "before reset" itself but keeps going after the episode ended."""
    if self._state.episode_id is None:
        raise ResetNeeded("call reset() first")
    self._state.step_count += 1
    return self._observe(done=self._state.step_count >= 3)


def test_stepping_after_done_is_caught() -> None:
    class PatchedAfterTheFact(Counter):
        pass

    # Assigning after class creation bypasses the base class's guard, like a careless patch.
    PatchedAfterTheFact.step = _unguarded_step  # type: ignore[method-assign]
    with pytest.raises(EnvCheckError, match=r"step\(\) after done=True must raise ResetNeeded"):
        check_env(PatchedAfterTheFact())


def test_stepping_before_reset_is_caught() -> None:
    class NoGuard(Counter):
        pass

    NoGuard.step = lambda self, action: self._observe()  # type: ignore[method-assign]
    with pytest.raises(EnvCheckError, match=r"step\(\) before reset\(\) must raise ResetNeeded"):
        check_env(NoGuard())


def test_a_step_count_that_does_not_count_is_caught() -> None:
    class Forgetful(Counter):
        def step(self, action: ProbeAction) -> ProbeObservation:
            self._done = getattr(self, "_done", 0) + 1
            return self._observe(done=self._done % 3 == 0)

    with pytest.raises(EnvCheckError, match=r"state\.step_count is 0 after 3 steps"):
        check_env(Forgetful())


def test_a_reset_that_is_already_done_is_caught() -> None:
    class DoneAtOnce(Counter):
        def reset(self, seed=None, episode_id=None) -> ProbeObservation:
            super().reset(seed=seed, episode_id=episode_id)
            return self._observe(done=True)

    with pytest.raises(EnvCheckError, match=r"reset\(\) returned an observation with done=True"):
        check_env(DoneAtOnce())


def test_a_render_that_returns_html_is_caught() -> None:
    class Html(Counter):
        def render(self):
            return "<b>board</b>"

    with pytest.raises(EnvCheckError, match=r"render\(\) returned str; return a Frame, Board"):
        check_env(Html())


def test_a_wrong_observation_type_is_caught() -> None:
    class Untyped(Counter):
        def reset(self, seed=None, episode_id=None):
            super().reset(seed=seed, episode_id=episode_id)
            return {"count": 0}

    with pytest.raises(EnvCheckError, match="reset\\(\\) returned dict, not ProbeObservation"):
        check_env(Untyped())


def test_an_env_without_wire_types_is_caught() -> None:
    class Bare(Environment):
        pass

    with pytest.raises(EnvCheckError, match=r"must subclass Environment\[ActionCls"):
        check_env(Bare())


def test_the_probe_env_used_by_the_protocol_tests_honours_the_contract() -> None:
    actions = lambda env, rng: {"label": rng.choice(["a", "b", "done"])}  # noqa: E731
    check_env(ProbeEnvironment(), actions=actions)
