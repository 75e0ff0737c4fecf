"""A seeded number-guessing game in the shape TRL's TextArena examples read: ``prompt`` and a
``messages`` history of ``{"role", "content"}``; the action is ``message`` (written against
``openenv==0.10.0``).

Why: the playground must draw a chat history and offer a text box for a free-form action.

- Action ``{"message": str}``: a whole number from 1 to 20. Anything else makes ``step`` raise
  ``ValueError`` (no guess is used up); the reference answers ``{"type": "error", "data":
  {"message": "'ten' is not a whole number from 1 to 20", "code": "EXECUTION_ERROR"}}``.
- Observation ``prompt`` (the task, constant) and ``messages``: the prompt as ``user``, then
  each guess as ``assistant`` and the reply (``Higher.`` / ``Lower.`` / ``Correct!``) as
  ``user``.
- The secret is ``random.Random(seed).randint(1, 20)``. 1.0 and done when guessed; 0.0 per
  wrong guess, done after six (the last reply says the number). Reset reward 0.0.
"""

import os
import random
from uuid import uuid4

from pydantic import Field

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation, State

PROMPT = "I am thinking of a number from 1 to 20. Guess it: answer with the number only."
LOW, HIGH = 1, 20
TRIES = 6


class GuessAction(Action):
    message: str = Field(description="Your guess, as text")


class GuessObservation(Observation):
    prompt: str = PROMPT
    messages: list[dict] = Field(default_factory=list)


class GuessEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self._state = State(episode_id=str(uuid4()))

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs
    ) -> GuessObservation:
        self._state = State(episode_id=episode_id or str(uuid4()))
        self._secret = random.Random(seed).randint(LOW, HIGH)
        self._messages = [{"role": "user", "content": PROMPT}]
        return GuessObservation(messages=list(self._messages), reward=0.0)

    def step(
        self, action: GuessAction, timeout_s: float | None = None, **kwargs
    ) -> GuessObservation:
        text = action.message.strip()
        if not (text.isascii() and text.isdigit() and LOW <= int(text) <= HIGH):
            raise ValueError(f"{text!r} is not a whole number from {LOW} to {HIGH}")
        guess = int(text)
        self._state.step_count += 1
        self._messages.append({"role": "assistant", "content": text})
        if guess == self._secret:
            reply, reward, done = "Correct!", 1.0, True
        else:
            reply = "Higher." if guess < self._secret else "Lower."
            reward, done = 0.0, self._state.step_count >= TRIES
            if done:
                reply += f" No guesses left: it was {self._secret}."
        self._messages.append({"role": "user", "content": reply})
        return GuessObservation(messages=list(self._messages), reward=reward, done=done)

    @property
    def state(self) -> State:
        return self._state


app = create_app(
    GuessEnvironment,
    GuessAction,
    GuessObservation,
    env_name="ref_guess",
    concurrency_config=ConcurrencyConfig(
        max_concurrent_envs=int(os.environ.get("REF_MAX_CONCURRENT_ENVS", "8"))
    ),
)
