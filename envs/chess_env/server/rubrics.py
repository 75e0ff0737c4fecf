"""Chess's reward, explained: the game's result, delayed to its last step, and forfeits.

Components: ``result`` (+1 win, -1 loss, 0 draw, scored on the last step from the side of the
player who just moved; 0 on every other step) and ``illegal_move`` (1 when an illegal move ends
the game under ``illegal_move="end"``, weight -1; ``result`` is then 0). ``GameResult`` is a
:class:`TrajectoryRubric`: at the end it also credits every agent move with the discounted
result, ``r_t = gamma^(T-1-t) * R_final`` from the side that made the move, and
``DiscountedRewards`` puts that list and ``gamma`` into the last observation's metadata.
"""

from __future__ import annotations

from typing import Any

from openenv.core.rubrics import FnRubric, TrajectoryRubric, WeightedSum
from openenv.core.rules import ILLEGAL_MOVE_PENALTY
from openenv.core.transforms import Transform

_WINNER = {"1-0": "white", "0-1": "black"}


def forfeited(observation: Any) -> bool:
    """True when an illegal move ended the game (``illegal_move="end"``)."""
    return "illegal_move" in observation.metadata


def credit(side: str, result: str | None) -> float:
    """R_final of ``side`` ("white"/"black") for a game ``result`` ("1-0", "0-1", "1/2-1/2")."""
    winner = _WINNER.get(result or "")
    if winner is None:
        return 0.0
    return 1.0 if side == winner else -1.0


def mover(observation: Any) -> str:
    """The side of the agent move that led to ``observation``."""
    if observation.agent_color != "both":
        return observation.agent_color
    # Self-play: no reply inside the step, so the mover is the side not to move now.
    return "white" if observation.turn == "black" else "black"


class GameResult(TrajectoryRubric):
    """+1 win, -1 loss, 0 draw on the last step (0 before); a forfeit is left to ``illegal_move``.

    ``step_rewards()`` gives one discounted credit per agent move (forfeits are not moves),
    each from the side that made it: in self-play the mated side's moves count -1.
    """

    def __init__(self, gamma: float = 0.99) -> None:
        super().__init__(gamma=gamma)

    def score_trajectory(self, trajectory: list[tuple[Any, Any]]) -> float:
        _, last = trajectory[-1]
        return 0.0 if forfeited(last) else credit(mover(last), last.result)

    def step_rewards(self) -> list[float]:
        if self.final_score is None:
            return []
        result = self._trajectory[-1][1].result
        moves = [obs for _, obs in self._trajectory if not forfeited(obs)]
        last = len(moves) - 1
        return [self.gamma ** (last - t) * credit(mover(o), result) for t, o in enumerate(moves)]


def chess_rubric(result: GameResult) -> WeightedSum:
    """``result`` plus the catalog's illegal-move penalty."""
    illegal = FnRubric(lambda action, observation: float(forfeited(observation)), "illegal_move")
    return WeightedSum(
        {"result": result, "illegal_move": illegal},
        {"result": 1.0, "illegal_move": ILLEGAL_MOVE_PENALTY},
    )


class DiscountedRewards(Transform):
    """On the last observation, add ``discounted_rewards`` and ``gamma`` to the metadata."""

    def __init__(self, result: GameResult) -> None:
        self.result = result

    def __call__(self, observation: Any) -> Any:
        if observation.done:
            rewards = self.result.step_rewards()
            gamma = self.result.gamma
            observation.metadata = {
                **observation.metadata,
                "discounted_rewards": rewards,
                "gamma": gamma,
            }
        return observation
