"""Who plays when the visitor lets an agent play: the playground's "🤖 agent" in autoplay, and
the other side of a two-player game ("agent answers my moves").

The agent is the server operator's choice, set by environment variables, never by the page:

- ``OPENENV_AGENT`` unset or ``random``: a random legal action (autoplay's own rule).
- ``OPENENV_AGENT=module:function``: a policy in Python on the server. ``function(observation,
  choices)`` gets the observation's fields (a dict) and the legal actions (a list of
  ``{"label", "action"}``) and returns the index of a choice or an action's fields (a dict);
  it may be a coroutine function. It runs in a worker thread (an async one on the loop), at
  most ``POLICY_TIMEOUT_S`` per move.
- ``OPENENV_AGENT=openai``: an OpenAI-compatible chat endpoint: ``OPENENV_AGENT_URL`` (the
  base URL, e.g. ``http://localhost:8000/v1``), ``OPENENV_AGENT_MODEL`` and optionally
  ``OPENENV_AGENT_API_KEY``. The model reads the observation and the numbered legal actions and
  answers with a number; its answer is bounded (``MAX_REPLY_BYTES``), the call too
  (``CHAT_TIMEOUT_S``), and so are the calls in flight (``MAX_CHAT_CALLS`` for the whole
  server, so visitors' autoplay cannot flood the operator's endpoint), and an answer that
  names no legal action is an error the visitor reads.

An agent picks among the legal actions (the buttons) when the environment lists them; a policy
may return any action, which the environment validates like a typed one.

**Whose side the agent plays** ("agent answers each of my moves"): the visitor plays one side,
explicitly ("you play: X", a turn value as the observation names it: ``1``, ``"white"``) or,
by default, the side that was to move when they pressed. The agent answers only when the
observation says it is the *other* side's turn (:func:`answer_wanted`): when the env's own
opponent has already replied inside the step (connect4's default), the turn is the visitor's
again and the agent waits. The turn is read from the first of :data:`TURN_FIELDS` the
observation (or its metadata) has; an env that names no turn is answered after every move.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import os
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from openenv.core.views import ActionChoice
from openenv.web.drawing.html import fold

AGENT_VAR = "OPENENV_AGENT"
POLICY_TIMEOUT_S = 30.0
CHAT_TIMEOUT_S = 30.0
MAX_REPLY_BYTES = 256 * 1024
MAX_PROMPT_CHARS = 8000
MAX_CHAT_CALLS = 4  # moves asked of a chat endpoint at once, by all the server's visitors
TURN_FIELDS = (
    "current_player", "current_player_id", "to_play", "next_player", "player_to_move", "turn",
    "current_turn",
)  # fmt: skip
MAX_SIDE_CHARS = 32


class AgentError(RuntimeError):
    """The agent could not choose a move; the message says why (the visitor reads it)."""


@dataclass(frozen=True)
class Move:
    """What an agent chose: a legal action's index, or an action's fields."""

    index: int | None = None
    action: dict[str, Any] | None = None


class Agent:
    """Chooses the next action from the observation and the legal actions."""

    name = "agent"

    async def choose(self, observation: dict[str, Any], legal: list[ActionChoice]) -> Move:
        raise NotImplementedError


class RandomAgent(Agent):
    name = "random legal actions"

    async def choose(self, observation: dict[str, Any], legal: list[ActionChoice]) -> Move:
        if not legal:
            raise AgentError("the random agent needs legal actions, and none are offered now")
        return Move(index=random.randrange(len(legal)))


class PolicyAgent(Agent):
    """A Python callable on the server (``OPENENV_AGENT=module:function``)."""

    def __init__(self, policy: Callable[..., Any], name: str) -> None:
        self.policy, self.name = policy, name

    async def choose(self, observation: dict[str, Any], legal: list[ActionChoice]) -> Move:
        choices = [{"label": c.label, "action": c.fields()} for c in legal]
        try:
            if inspect.iscoroutinefunction(self.policy):
                call = self.policy(observation, choices)
            else:
                call = asyncio.to_thread(self.policy, observation, choices)
            answer = await asyncio.wait_for(call, POLICY_TIMEOUT_S)
        except TimeoutError:
            raise AgentError(f"the policy took longer than {POLICY_TIMEOUT_S:g} s") from None
        except Exception as exc:  # the operator's code: its failure is said, the page goes on
            raise AgentError(f"the policy raised {type(exc).__name__}: {exc}") from None
        return _move(answer, legal, f"the policy {self.name}")


class ChatAgent(Agent):
    """An OpenAI-compatible chat completions endpoint (``OPENENV_AGENT=openai``)."""

    def __init__(self, url: str, model: str, api_key: str | None = None) -> None:
        self.url = url.rstrip("/") + "/chat/completions"
        self.model, self._key = model, api_key
        self.name = f"{model} (chat endpoint)"
        self._calls = asyncio.Semaphore(MAX_CHAT_CALLS)  # the operator's endpoint, and its bill

    async def choose(self, observation: dict[str, Any], legal: list[ActionChoice]) -> Move:
        if not legal:
            raise AgentError("the chat agent picks among legal actions, and none are offered now")
        body = {"model": self.model, "messages": _messages(observation, legal), "temperature": 0}
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        try:
            await asyncio.wait_for(self._calls.acquire(), CHAT_TIMEOUT_S)
        except TimeoutError:
            raise AgentError("the chat endpoint is busy with other visitors' moves") from None
        try:
            text = await self._post(body, headers)
        finally:
            self._calls.release()
        found = re.search(r"-?\d+", text)
        if found is None or not 1 <= int(found.group()) <= len(legal):
            raise AgentError(f"the model's answer names no legal action: {text[:200]!r}")
        return Move(index=int(found.group()) - 1)

    async def _post(self, body: dict[str, Any], headers: dict[str, str]) -> str:
        import httpx

        try:
            async with (
                httpx.AsyncClient(timeout=CHAT_TIMEOUT_S) as client,
                client.stream("POST", self.url, json=body, headers=headers) as response,
            ):
                raw = b""
                async for chunk in response.aiter_bytes():
                    raw += chunk
                    if len(raw) > MAX_REPLY_BYTES:
                        raise AgentError(f"the model's answer is over {MAX_REPLY_BYTES} bytes")
                if response.status_code != 200:
                    raise AgentError(f"the chat endpoint answered HTTP {response.status_code}")
        except httpx.HTTPError as exc:
            raise AgentError(f"the chat endpoint did not answer ({type(exc).__name__})") from None
        try:
            return str(json.loads(raw)["choices"][0]["message"]["content"] or "")
        except (ValueError, KeyError, IndexError, TypeError):
            raise AgentError("the chat endpoint's answer is not a chat completion") from None


def agent_from_env(environ: Mapping[str, str] = os.environ) -> Agent:
    """The agent the operator configured (see the module docstring); ValueError says what is
    wrong with the settings."""
    spec = environ.get(AGENT_VAR, "").strip()
    if spec in ("", "random"):
        return RandomAgent()
    if spec == "openai":
        url, model = environ.get("OPENENV_AGENT_URL", ""), environ.get("OPENENV_AGENT_MODEL", "")
        if not url.startswith(("http://", "https://")) or not model:
            raise ValueError(
                f"{AGENT_VAR}=openai needs OPENENV_AGENT_URL (http(s)://...) and "
                "OPENENV_AGENT_MODEL"
            )
        return ChatAgent(url, model, environ.get("OPENENV_AGENT_API_KEY") or None)
    module, _, attribute = spec.partition(":")
    if not module or not attribute:
        raise ValueError(f"{AGENT_VAR} must be random, openai or module:function, got {spec!r}")
    policy = getattr(importlib.import_module(module), attribute, None)
    if not callable(policy):
        raise ValueError(f"{AGENT_VAR}={spec}: {attribute} is not a function of {module}")
    return PolicyAgent(policy, spec)


def _move(answer: Any, legal: list[ActionChoice], who: str) -> Move:
    if isinstance(answer, bool) or answer is None:
        raise AgentError(f"{who} returned {answer!r}: return a choice's index or an action")
    if isinstance(answer, int):
        if not 0 <= answer < len(legal):
            raise AgentError(f"{who} returned {answer}, not one of the {len(legal)} choices")
        return Move(index=answer)
    if isinstance(answer, dict):
        return Move(action=answer)
    raise AgentError(f"{who} returned a {type(answer).__name__}: return an index or a dict")


def _messages(observation: dict[str, Any], legal: list[ActionChoice]) -> list[dict[str, str]]:
    shown = {k: v for k, v in observation.items() if k not in ("reward", "done", "metadata")}
    state = json.dumps(fold(shown), ensure_ascii=False, default=str)[:MAX_PROMPT_CHARS]
    options = "\n".join(f"{i}. {choice.label}" for i, choice in enumerate(legal, start=1))
    return [
        {
            "role": "system",
            "content": "You play a game. Answer with the number of the action you choose, "
            "and nothing else.",
        },
        {"role": "user", "content": f"Observation:\n{state}\n\nLegal actions:\n{options}"},
    ]


# -- whose side -------------------------------------------------------------------------------


def turn_of(observation: Mapping[str, Any] | None) -> int | str | None:
    """Who is to move, as the observation says (``None``: it does not say, or the game is over:
    a negative player id, as OpenSpiel reports a terminal state)."""
    if not isinstance(observation, Mapping):
        return None
    metadata = observation.get("metadata")
    for source in (observation, metadata if isinstance(metadata, Mapping) else {}):
        for name in TURN_FIELDS:
            value = source.get(name)
            if isinstance(value, bool) or value is None:
                continue
            if isinstance(value, int):
                return value if value >= 0 or name != "current_player_id" else None
            if isinstance(value, str) and 0 < len(value) <= MAX_SIDE_CHARS:
                return value.strip().lower()
    return None


def side_of(value: Any) -> int | str | None:
    """A visitor's "you play" choice as a turn value (``None``: none, or not one)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and 0 < len(value.strip()) <= MAX_SIDE_CHARS:
        text = value.strip().lower()
        return int(text) if text.lstrip("-").isdigit() else text
    return None


def answer_wanted(after: Mapping[str, Any] | None, mover: Any, side: Any = None) -> bool:
    """Whether the agent answers the visitor's move now: ``after`` is the observation the move
    gave, ``mover`` whose turn it was before it (:func:`turn_of`), ``side`` the visitor's
    "you play" choice (``None``: the mover's side). Only when it is known to be the other
    side's turn, or when the env names no turn at all."""
    turn = turn_of(after)
    if turn is None:  # no turns named: answer each move (unless the turns ended: game over)
        return mover is None
    mine = side_of(side)
    if mine is None:
        mine = mover
    return mine is not None and turn != mine


def agent_opens(observation: Mapping[str, Any] | None, side: Any) -> bool:
    """Whether the agent moves first after a reset: the visitor chose a side and it is the
    other side's turn."""
    mine, turn = side_of(side), turn_of(observation)
    return mine is not None and turn is not None and turn != mine
