"""The Environment contract, enforced by the base class for every environment."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field
from wire_apps import ProbeAction, ProbeEnvironment, ProbeObservation, ProbeState

from openenv.core import Environment, InvalidAction, ResetNeeded
from openenv.core.serialization import observation_to_wire, step_result_from_wire


def test_step_before_reset_says_to_reset() -> None:
    with pytest.raises(ResetNeeded, match=r"call reset\(\)"):
        ProbeEnvironment().step(ProbeAction(label="a"))


def test_step_after_done_is_refused_and_changes_nothing() -> None:
    env = ProbeEnvironment()
    env.reset(seed=1)
    assert env.step(ProbeAction(label="done")).done
    before = env.state.model_dump()
    with pytest.raises(ResetNeeded, match="episode is over"):
        env.step(ProbeAction(label="more"))
    assert env.state.model_dump() == before
    env.reset()
    assert env.step(ProbeAction(label="again")).count == 1


def test_a_seed_reproduces_the_episode_and_an_unseeded_one_can_be_replayed() -> None:
    env = ProbeEnvironment()
    assert env.reset(seed=5).start == env.reset(seed=5).start
    unseeded = env.reset()
    assert env.reset(seed=env.seed).start == unseeded.start


@pytest.mark.parametrize("seed", ["7", 1.5, True])
def test_a_seed_must_be_an_integer(seed) -> None:
    with pytest.raises(InvalidAction, match="seed must be an integer"):
        ProbeEnvironment().reset(seed=seed)


def test_unknown_reset_options_are_refused_with_the_accepted_list() -> None:
    with pytest.raises(InvalidAction, match="accepted options: seed, episode_id, level"):
        ProbeEnvironment().reset(levle=2)
    assert ProbeEnvironment().reset(level=2).label == "reset"


class Bounded(ProbeEnvironment):
    """Reset options with bounds in their annotation, and one without."""

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        size: Annotated[int, Field(ge=2, le=32)] = 8,
        rate: Annotated[float, Field(gt=0, le=1)] | None = None,
        level: int = 0,
    ) -> ProbeObservation:
        return super().reset(seed=seed, episode_id=episode_id, level=level)


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"size": 33}, "size=33: should be less than or equal to 32"),
        ({"size": 1}, "size=1: should be greater than or equal to 2"),
        (
            {"size": "big"},
            "size='big': should be a valid integer, unable to parse string as an integer",
        ),
        ({"rate": 0}, "rate=0: should be greater than 0"),
    ],
)
def test_reset_options_are_held_to_the_bounds_their_annotation_declares(options, says) -> None:
    env = Bounded()
    with pytest.raises(InvalidAction) as refused:
        env.reset(**options)
    assert str(refused.value) == says
    assert env.reset(size=32, rate=None, level=10**6).label == "reset"  # within; unbounded


def test_close_twice_is_harmless() -> None:
    class Closing(ProbeEnvironment):
        closed = 0

        def close(self) -> None:
            Closing.closed += 1

    env = Closing()
    env.close()
    env.close()
    assert Closing.closed == 1


def test_methods_from_a_mixin_are_held_to_the_contract() -> None:
    class Moves:
        def reset(self, seed=None, episode_id=None):
            return ProbeObservation()

        def step(self, action):
            return ProbeObservation(done=True)

    class Mixed(Moves, Environment[ProbeAction, ProbeObservation, ProbeState]):
        @property
        def state(self) -> ProbeState:
            return ProbeState()

    env = Mixed()
    with pytest.raises(ResetNeeded):
        env.step(ProbeAction())
    with pytest.raises(InvalidAction, match="does not accept 'colour'"):
        env.reset(colour="red")
    env.reset()
    env.step(ProbeAction())
    with pytest.raises(ResetNeeded):
        env.step(ProbeAction())


async def test_async_only_envs_get_the_same_rules() -> None:
    class Remote(Environment[ProbeAction, ProbeObservation, ProbeState]):
        async def reset_async(self, seed=None, episode_id=None):
            return ProbeObservation(start=self.rng.randrange(100))

        async def step_async(self, action):
            return ProbeObservation(label=action.label, done=True)

        @property
        def state(self) -> ProbeState:
            return ProbeState()

    env = Remote()
    with pytest.raises(ResetNeeded):
        await env.step_async(ProbeAction())
    assert (await env.reset_async(seed=3)).start == (await env.reset_async(seed=3)).start
    with pytest.raises(InvalidAction):
        await env.reset_async(speed=2)
    await env.step_async(ProbeAction(label="x"))
    with pytest.raises(ResetNeeded):
        await env.step_async(ProbeAction())
    with pytest.raises(NotImplementedError, match="async-only"):
        env.reset()


def test_wire_types_come_from_the_generic_arguments() -> None:
    assert ProbeEnvironment.wire_types() == (ProbeAction, ProbeObservation, ProbeState)


def test_observation_payload_matches_the_reference_shape() -> None:
    plain = observation_to_wire(ProbeObservation(label="a", reward=1, done=False))
    assert set(plain) == {"observation", "reward", "done"}  # metadata only when non-empty
    assert plain["observation"]["metadata"] == {}
    assert "reward" not in plain["observation"]
    tagged = observation_to_wire(ProbeObservation(metadata={"k": 1}))
    assert tagged["metadata"] == {"k": 1} == tagged["observation"]["metadata"]
    back = step_result_from_wire(tagged, ProbeObservation)
    assert back.observation.metadata == {"k": 1}
