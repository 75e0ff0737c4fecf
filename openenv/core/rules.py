"""One rule for illegal moves across every game in the catalog.

Default (``illegal_move="refuse"``): the move is refused with :class:`InvalidAction` carrying
the reason; the board does not change and the player keeps the turn.

Reset option ``illegal_move="end"``: the episode ends with reward ``ILLEGAL_MOVE_PENALTY``
(-1.0), ``metadata["illegal_move"]`` holds the reason, and the board still does not change.
This is the PettingZoo / Connect Four convention some training setups expect.
"""

from __future__ import annotations

from typing import Literal

from openenv.core.errors import InvalidAction

IllegalMovePolicy = Literal["refuse", "end"]
ILLEGAL_MOVE_PENALTY = -1.0
POLICIES: tuple[str, ...] = ("refuse", "end")


def check_policy(policy: str) -> IllegalMovePolicy:
    """Validate a reset option value; raise InvalidAction naming the accepted values."""
    if policy not in POLICIES:
        raise InvalidAction(f"illegal_move must be one of {', '.join(POLICIES)}; got {policy!r}")
    return policy  # type: ignore[return-value]


def illegal_move(policy: IllegalMovePolicy, reason: str) -> dict[str, str]:
    """Apply the policy: raise InvalidAction (refuse), or return the metadata of an ending step.

    Usage in an environment's ``step``::

        if not legal:
            meta = illegal_move(self._illegal_policy, "column 3 is full")
            return self._observe(reward=ILLEGAL_MOVE_PENALTY, done=True, metadata=meta)
    """
    if policy == "refuse":
        raise InvalidAction(f"illegal move: {reason}")
    return {"illegal_move": reason}
