"""OpenSpiel's oracle, for tic-tac-toe moving second against the random opponent: expectimax (the
move with the best expected return when the opponent plays uniformly at random). It wins.

Score: the final reward (+1 win, -1 loss, 0 draw). Moving second, a random agent loses more
often than it wins; canaries play taken or missing cells (refused).
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle


class OpenSpielOracle(Oracle):
    score_range = (-1.0, 1.0)
    floor_margin = 0.5
    reset_options = {"game_name": "tic_tac_toe", "agent_player": 1, "opponent_policy": "random"}
    max_steps = 9
    probe_steps = 9

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        state = env._spiel
        if state.is_terminal():
            return None
        player = state.current_player()
        best = max(state.legal_actions(), key=lambda a: _value(state.child(a), player))
        return {"action_id": int(best)}

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("missing_cell", "cell 9 of a 3x3 board", {"action_id": 9}),
            Canary("taken_cell", "plays a cell already taken", _taken),
        ]


def _value(state: Any, player: int) -> float:
    return _expect(str(state), state.clone(), player)


_CACHE: dict[tuple[str, int], float] = {}


def _expect(key: str, state: Any, player: int) -> float:
    if (key, player) in _CACHE:
        return _CACHE[(key, player)]
    if state.is_terminal():
        value = float(state.returns()[player])
    else:
        children = [state.child(a) for a in state.legal_actions()]
        values = [_expect(str(c), c, player) for c in children]
        value = max(values) if state.current_player() == player else sum(values) / len(values)
    _CACHE[(key, player)] = value
    return value


def _taken(env: Any, observation: Any, step: int) -> dict[str, Any] | None:
    legal = set(env._spiel.legal_actions()) if not env._spiel.is_terminal() else set()
    taken = [a for a in range(9) if a not in legal]
    return {"action_id": taken[0]} if taken else {"action_id": 9}


ORACLE = OpenSpielOracle()
