"""A small rubric-scored environment served with its playground, for the reward-debugger tests:
``uvicorn tests.reward_apps:app``. Guess coin flips: a right guess scores 1, every step costs
0.05, so the reward curve depends on the actions taken."""

from __future__ import annotations

from openenv.core import Action, ActionChoice, Environment, Observation, State
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.transforms import RewardScale
from openenv.server import create_app


class CoinAction(Action):
    guess: str


class CoinObservation(Observation):
    flip: str = ""


class CoinEnvironment(Environment[CoinAction, CoinObservation, State]):
    """Guess coin flips; right guesses score, every step costs a little. Ten flips."""

    def __init__(self, *, scale: float | None = None) -> None:
        self.transform = RewardScale(scale) if scale else None
        self.rubric = WeightedSum(
            {
                "correct": FnRubric(lambda a, o: float(a.guess == o.flip)),
                "step_cost": FnRubric(lambda a, o: 1.0),
            },
            {"correct": 1.0, "step_cost": -0.05},
        )
        self._state = State()

    def reset(self, seed=None, episode_id=None) -> CoinObservation:
        self._state = State(episode_id=episode_id or "coin")
        return CoinObservation()

    def step(self, action: CoinAction) -> CoinObservation:
        self._state.step_count += 1
        flip = self.rng.choice(["heads", "tails"])
        return CoinObservation(flip=flip, done=self._state.step_count >= 10)

    @property
    def state(self) -> State:
        return self._state

    def legal_actions(self) -> list[ActionChoice]:
        return [ActionChoice(side.title(), {"guess": side}) for side in ("heads", "tails")]


app = create_app(CoinEnvironment, CoinAction, CoinObservation)
