"""What the playground says to a visitor, one wording per situation, for every front end (the
fast shell, the Gradio page, the Rewards panel, the Tools tab). The stage script has one more,
for a server that does not answer at all (``NO_ANSWER`` in ``assets/stage.js``)."""

from __future__ import annotations

GONE = "This page's session is gone: press Reset to start again."
NOT_YOURS = "This tab was opened by another visitor: reload the page for a tab of your own."
LOCKED = "This server is protected: enter its API token to start."
LOCKED_SHELL = "This server is protected: its token form appears as the page finishes loading."
WRONG_TOKEN = "That token is not this server's API token (OPENENV_API_TOKEN)."
TOKEN_FIRST = "Enter the API token first."
NO_SESSION = "No session yet: press Reset to start an episode."
NO_LONGER_LEGAL = "That action is no longer available; pick one of the buttons shown."
NO_SLIDERS = "There are no sliders now: use the buttons or the action form."
NO_AUTOPLAY = "Autoplay needs legal actions or sliders, and this environment offers neither."
NOT_POINTABLE = "What is shown now takes no clicks or keys: use the buttons or the action form."
NOTHING_TYPED = "This environment takes no typed action on the stage: use the buttons."
STARTED = "New episode started."
ENDED_ON_RESET = "The episode ended on reset."
OVER = "The episode is over: press Reset to play again."


def expired(reason: str) -> str:
    return f"Session expired ({reason}): press Reset to start a new one."


def full(detail: str) -> str:
    return f"The server is full: {detail}. Press Reset to try again."


def cannot_start(detail: str) -> str:
    return f"Could not start the environment: {detail}"


def refused(what: str, detail: str) -> str:
    """An action or reset the environment refused: nothing changed."""
    return f"{what} refused, nothing changed: {detail}"


def failed(what: str, detail: str) -> str:
    """An action or reset the environment raised on: nothing changed."""
    return f"{what} failed, nothing changed: {detail}"


def reset_needed(detail: str) -> str:
    return f"{detail}. Press Reset."


def draw_failed(detail: str) -> str:
    return f"The environment failed to draw itself: {detail}"


def replayed(steps: int, done: bool) -> str:
    if done:
        return f"Replayed {steps} steps: the episode is over, as it was. Press Reset to play."
    return f"Replayed {steps} steps: your turn."


def replay_refused(step: int, detail: str) -> str:
    return f"The replay stopped at step {step}: {detail}"


def replay_ended(steps: int, total: int) -> str:
    return (
        f"The replay stopped after {steps} of {total} steps: the episode ended there "
        "(the environment did not replay exactly)."
    )


def replay_too_long(steps: int, limit: int) -> str:
    return f"That episode has {steps} steps; at most {limit} can be replayed."


def bad_link(detail: str) -> str:
    return f"This link's episode cannot be replayed: {detail}."


def agent_failed(detail: str) -> str:
    return f"The agent could not move: {detail}. Play on yourself, or try again."
