"""Atari's oracle, for Pong (the default game): a paddle that follows the ball from the RAM,
planned point by point on a copy of the emulator, wins the whole game 21-0.

The tracker moves the right (green) paddle so that the ball meets it at a chosen offset from
the paddle's top; where on the paddle the ball lands sets its return angle. Before each point
the oracle tries a few offsets on a clone of the emulator's state (``cloneState``), each played
until the point ends, keeps the first whose copy wins it and plays that copy's buttons; the
emulator is restored after every try, so the env never sees the search. Without sticky actions
(``repeat_action_probability`` 0, set here) ALE is deterministic: the copy is the future.

The validator's episodes run with ``obs_type="ram"``: the 128 bytes the tracker reads (ball at
49/54, paddles at 50/51) are the observation, and a 4600-step record stays small.

Scope: Pong only (:data:`SOLVED`). The package offers 104 ALE games; this oracle, the declared
reward range (per step -1..1), the maximum 21, the floor margin and the canaries are Pong's,
and every validation episode is a Pong game (``reset_options`` pins ``game_name``). The other
games have no oracle and their score ranges are not declared (Breakout pays 1 to 7 a brick,
Space Invaders 5 to 200 an invader): validating them would need a solver per game. The report
says so (``Oracle.scope``), and the oracle refuses to play any other game rather than claim a
score for it.

Score: the game's score difference, the sum of the rewards: +21 for a 21-0 win, -21 for a
21-0 loss (the floor). The oracle wins 21-0 in 4600 steps; a random joystick and a
paddle left alone (NOOP, the null policy) lose 21-0 or 20-21. Canaries press FIRE only (it
does not move the paddle: 0-21) and send a button outside the action set (refused).
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

POINTS = 21  # a Pong game ends when one side has 21
BALL_Y, PLAYER_Y = 54, 51  # RAM addresses (the ball's x is at 49, the computer's paddle at 50)
OFFSETS = (14, 1, 7, 3, 9, 12, 5)  # ball-to-paddle-top offsets tried, most often winning first
DEADBAND = 2  # no move while the ball is this close to the aim
HORIZON = 300  # steps a try may take to win its point
GAME_STEPS = 6000  # the oracle budget: its 21 points take 4600 steps
SOLVED = ("pong",)  # the games this oracle and the package's validation declaration cover


class AtariOracle(Oracle):
    score_range = (-float(POINTS), float(POINTS))
    tolerance = 0.0
    floor_margin = 20.0
    reset_options = {
        "game_name": "pong",
        "obs_type": "ram",
        "full_action_space": False,
        "frameskip": 4,
        "repeat_action_probability": 0.0,
    }
    max_steps = GAME_STEPS
    probe_steps = 20
    scope = (
        "Pong (game_name='pong') of the 104 games the package offers: the others have no "
        "oracle and no declared score range"
    )

    def __init__(self) -> None:
        self._plans: dict[int, tuple[str, list[int]]] = {}  # id(env) -> (episode, buttons)

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        game = env._config.game_name
        if game not in SOLVED:
            raise ValueError(
                f"the Atari oracle solves {', '.join(SOLVED)} only, not {game!r}: "
                "no maximum is declared for it"
            )
        if env.episode_over or observation.done:
            self._plans.pop(id(env), None)
            return None
        episode = env.state.episode_id
        known, plan = self._plans.get(id(env), ("", []))
        if known != episode or observation.reward or not plan:  # a point ended: plan the next
            plan = _plan(env)
        self._plans[id(env)] = (episode, plan[1:])
        return {"action_id": plan[0]}

    def score(self, rewards: Any) -> float:
        return float(sum(rewards))

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat(
                "fire_only", "presses FIRE, which never moves the paddle", {"action_id": 1}
            ),
            Canary.repeat("no_such_button", "a button outside Pong's six", {"action_id": 17}),
        ]


def _buttons(env: Any) -> tuple[int, int, int]:
    """(NOOP, up, down) indices of the action set: in Pong RIGHT moves the paddle up."""
    names = env._meanings()
    return names.index("NOOP"), names.index("RIGHT"), names.index("LEFT")


def _track(ram: Any, offset: int, buttons: tuple[int, int, int]) -> int:
    noop, up, down = buttons
    gap = int(ram[BALL_Y]) - int(ram[PLAYER_Y]) - offset
    return down if gap > DEADBAND else up if gap < -DEADBAND else noop


def _plan(env: Any) -> list[int]:
    """The buttons of the first offset whose copy of the game wins the coming point (else the
    copy that rallies longest, or loses last)."""
    ale, actions, frameskip = env._ale, env._actions, env._config.frameskip
    buttons = _buttons(env)
    start = ale.cloneState(include_rng=True)
    best: tuple[float, list[int]] | None = None
    try:
        for offset in OFFSETS:
            pressed: list[int] = []
            reward = 0.0
            while not reward and len(pressed) < HORIZON and not ale.game_over():
                pressed.append(_track(ale.getRAM(), offset, buttons))
                for _ in range(frameskip):
                    reward += ale.act(actions[pressed[-1]])
            ale.restoreState(start)
            if reward > 0:
                return pressed
            # a rally still going beats a lost point; a later loss beats an earlier one
            rank = (1.0 if reward == 0 else 0.0) + len(pressed) / (HORIZON + 1)
            if best is None or rank > best[0]:
                best = (rank, pressed if reward == 0 else pressed[:-1] or pressed)
    finally:
        ale.restoreState(start)
    assert best is not None
    return best[1]


ORACLE = AtariOracle()
