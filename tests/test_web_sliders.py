"""Continuous actions as sliders: the contract (Slider, ActionSliders), the controller's slider
steps and autoplay, and the stage's markup. The browser side is in test_web_playground.py."""

from __future__ import annotations

import random
import re
import uuid

import pytest

from openenv.core import Action, ActionSliders, Environment, Observation, Slider, State
from openenv.server import create_app
from openenv.testing import check_env
from openenv.web.stage.controller import Controller
from openenv.web.stage.html import stage_html
from tests.conftest import run_async as run


class DriveAction(Action):
    values: list[float]
    gear: str = "D"


class DriveObservation(Observation):
    position: float = 0.0
    gear: str = ""


class DriveEnvironment(Environment[DriveAction, DriveObservation, State]):
    """Moves by the throttle; the domain ("track") chosen at reset sets the number of sliders."""

    def __init__(self) -> None:
        self._state = State()
        self._position = 0.0
        self._track = "road"

    def reset(self, seed=None, episode_id=None, track: str = "road") -> DriveObservation:
        self._state = State(episode_id=episode_id or str(uuid.uuid4()))
        self._position, self._track = 0.0, track
        return DriveObservation()

    def step(self, action: DriveAction) -> DriveObservation:
        if not -1 <= action.values[0] <= 1:
            raise ValueError("throttle out of range")  # the sliders must not let this through
        self._state.step_count += 1
        self._position += action.values[0]
        done = self._state.step_count >= 40
        return DriveObservation(position=self._position, gear=action.gear, reward=1.0, done=done)

    @property
    def state(self) -> State:
        return self._state

    def action_sliders(self) -> ActionSliders:
        sliders = [Slider("throttle", -1, 1), Slider("steer", 0, 2, value=1)]
        if self._track == "rally":
            sliders.append(Slider("handbrake", 0, 1, step=0.5))
        return ActionSliders("values", tuple(sliders), action={"gear": "S"})


def test_a_slider_checks_its_bounds_and_steps_on_round_values():
    assert Slider("a", -2, 2).step == 0.01  # a power of ten: 1.5 is reachable
    assert Slider("a", 0, 100).step == 1 and Slider("a", 0, 0.5).step == 0.001
    assert Slider("a", 0, 1, value=5).value == 1  # the start is clamped into the range
    for low, high in ((1, 1), (2, 1), (0, float("inf")), (float("nan"), 1)):
        with pytest.raises(ValueError, match="finite bounds"):
            Slider("a", low, high)
    with pytest.raises(ValueError, match="positive step"):
        Slider("a", 0, 1, step=0)
    assert Slider("a", -2, 2).snap(1.9800000001) == 1.98
    assert Slider("a", 0, 1, step=0.3).snap(0.95) == 0.9 and Slider("a", 0, 1).snap(7) == 1


def test_action_sliders_build_the_action_and_refuse_bad_values_readably():
    sliders = DriveEnvironment().action_sliders()
    assert sliders.start == [0.0, 1.0]
    assert sliders.action_for([0.5, 2]) == {"gear": "S", "values": [0.5, 2.0]}
    for bad, message in (
        ([0.5], "send 2 slider values"),
        ("0.5,1", "send 2 slider values"),
        ([2, 1], r"throttle: 2 is outside \[-1, 1\]"),
        ([float("nan"), 1], "throttle: nan is outside"),
        ([True, 1], "throttle: True is not a number"),
        (["1", 1], "throttle: '1' is not a number"),
    ):
        with pytest.raises(ValueError, match=message):
            sliders.action_for(bad)
    rng = random.Random(4)
    for values in (sliders.sample(rng) for _ in range(200)):
        sliders.action_for(values)  # inside the ranges
        assert all(round(v, 2) == v for v in values)  # on the sliders' steps
    scalar = ActionSliders("action", (Slider("torque", -2, 2),), scalar=True)
    assert scalar.action_for([1.5]) == {"action": 1.5}
    with pytest.raises(ValueError, match="exactly one"):
        ActionSliders("action", (Slider("a", 0, 1), Slider("b", 0, 1)), scalar=True)
    with pytest.raises(ValueError, match="at least one"):
        ActionSliders("action", ())


def test_check_env_plays_an_env_with_sliders_and_no_buttons():
    check_env(DriveEnvironment(), steps=10)


@pytest.fixture
def controller():
    app = create_app(DriveEnvironment, max_concurrent_envs=2, enable_web=False)
    return Controller(app.state.openenv)


def test_the_sliders_step_stay_where_they_were_left_and_refuse_bad_values(controller):
    run(_slider_steps(controller))


async def _slider_steps(controller: Controller) -> None:
    tab = controller.new_tab("visitor")
    assert await controller.reset(tab, {})
    assert tab.shows.slider_values == [0.0, 1.0]
    html = stage_html(tab)
    ranges = re.findall(r'<input type="range"[^>]*>', html)
    assert len(ranges) == 2 and 'min="-1" max="1" step="0.01" value="0"' in ranges[0]
    assert 'class="oe-slide"' in html and "hold during autoplay" in html

    assert await controller.press(tab, {"values": [0.25, 1.5]})
    assert tab.episode.steps[-1]["action"] == {"values": [0.25, 1.5], "gear": "S", "metadata": {}}
    assert tab.episode.observation["position"] == 0.25 and tab.shows.slider_values == [0.25, 1.5]
    html = stage_html(tab)
    assert 'value="0.25"' in html  # drawn where the visitor left them
    assert "On a slider, <kbd>←</kbd><kbd>→</kbd> move it and <kbd>⏎</kbd> steps" in html

    before = (list(tab.episode.steps), tab.episode.observation)
    for bad in ([3, 1], [0.1], "fast", None):
        assert not await controller.press(tab, {"values": bad})
        assert tab.notice.text.startswith("Step refused, nothing changed:"), tab.notice.text
    assert (tab.episode.steps, tab.episode.observation) == before
    assert tab.shows.slider_values == [0.25, 1.5]

    # A reset that changes the action space starts the sliders afresh; one that does not
    # keeps them.
    assert await controller.reset(tab, {})
    assert tab.shows.slider_values == [0.25, 1.5]
    assert await controller.reset(tab, {"track": "rally"})
    assert tab.shows.slider_values == [0.0, 1.0, 0.0]
    assert len(re.findall(r'<input type="range"', stage_html(tab))) == 3

    # Autoplay draws random values inside the ranges, on the sliders' steps.
    for _ in range(20):
        assert await controller.random_step(tab)
    played = [s["action"]["values"] for s in tab.episode.steps]
    assert len(played) == 20 and len({tuple(v) for v in played}) > 10
    assert all(-1 <= t <= 1 and 0 <= s <= 2 and h in (0, 0.5, 1) for t, s, h in played)
    await controller.close(tab)


def test_an_env_without_sliders_refuses_slider_values_and_autoplay_explains():
    from grid_world_env.server.environment import GridWorldEnvironment

    from openenv.core import ActionChoice

    class NoActions(GridWorldEnvironment):
        def legal_actions(self) -> list[ActionChoice]:
            return []

    app = create_app(NoActions, max_concurrent_envs=1, enable_web=False)
    run(_no_sliders(Controller(app.state.openenv)))


async def _no_sliders(controller: Controller) -> None:
    tab = controller.new_tab(None)
    assert await controller.reset(tab, {})
    assert tab.shows.sliders is None and "oe-sliders" not in stage_html(tab)
    assert not await controller.press(tab, {"values": [1]})
    assert "There are no sliders now" in tab.notice.text
    assert not await controller.random_step(tab)
    assert "needs legal actions or sliders" in tab.notice.text
    await controller.close(tab)
