"""Inspect AI: an OpenEnv environment as the environment of every sample of an Inspect task.

::

    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample

    from openenv.integrations.inspect import openenv_agent, openenv_reward
    from wordle_env import WordleEnv

    @task
    def wordle():
        return Task(
            dataset=[Sample(input="Find the word.", metadata={"seed": s}) for s in range(10)],
            solver=openenv_agent(lambda: WordleEnv(base_url="http://localhost:8000")),
            scorer=openenv_reward(),
        )

Each sample gets a session of its own. :func:`openenv_agent` opens it, resets it with the
sample's ``metadata["seed"]`` and ``metadata["options"]`` (the env's reset options, a dict),
shows the model the first observation, gives it the environment's tools, lets it act until the
episode ends (or it answers without a tool call, or after ``max_turns`` turns), and closes the
session, also when the sample fails. The tools:

- a tool (MCP) environment (echo): each of its tools, with its name, description and
  JSON input schema. A call is a step of the episode (``CallToolAction``), so it earns the
  environment's reward; the tool's text result is what the model reads.
- any other environment (wordle, grid_world): one tool, ``step``, whose parameters are the
  fields of the env's action (from its schema); the model reads the observation, the reward
  and ``done`` as JSON.

An action the environment refuses (invalid arguments, an illegal move, a step after the end)
reaches the model as a tool error, and the episode goes on. The rewards are kept in the
sample's store (:class:`OpenEnvEpisode`); :func:`openenv_reward` scores the sample with their
total (or the last one). The same seed is used in every epoch of a sample. A server refuses
sessions beyond its ``max_concurrent_envs``: keep ``max_samples`` at most that.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from inspect import isawaitable
from typing import Any, Literal

import httpx
from inspect_ai.model import ChatMessageUser
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolDef, ToolError, ToolParams
from inspect_ai.util import StoreModel
from pydantic import BaseModel, Field

from openenv.client import GenericEnvClient
from openenv.core.errors import InvalidAction, ResetNeeded, ServerError, ToolCallError
from openenv.core.mcp import Tool

EnvSource = str | Callable[[], Any]
"""A server's URL (a :class:`GenericEnvClient` is opened on it), or a function returning a new
client, or an awaitable of one (``lambda: WordleEnv.from_env("wordle", local=True)``)."""

ToolsMode = Literal["auto", "mcp", "step"]
STEP_TOOL = "step"
HIDDEN_ACTION_FIELDS = ("metadata",)  # on every action; not for the model to fill in


class OpenEnvEpisode(StoreModel):
    """The sample's episode, as its tools saw it (kept in the sample's store, shown in the log)."""

    rewards: list[float] = Field(default_factory=list, description="Reward of every step")
    steps: int = Field(default=0, description="Steps the environment took")
    done: bool = Field(default=False, description="Whether the episode ended")
    refused: int = Field(default=0, description="Actions the environment refused")


# -- the solver ---------------------------------------------------------------------------


@solver
def openenv_agent(
    env: EnvSource,
    *,
    tools: ToolsMode = "auto",
    max_turns: int = 50,
    agent: Solver | None = None,
    show_reset: bool = True,
) -> Solver:
    """Run one episode of ``env`` per sample, the model acting through the env's tools.

    Args:
        env: Where each sample's session comes from (see :data:`EnvSource`).
        tools: ``"mcp"``: the env's tools; ``"step"``: one ``step`` tool from the action
            schema; ``"auto"``: the env's tools if it has any, else ``step``.
        max_turns: Model turns at most (the default loop), refused actions included.
        agent: A solver to act instead of the default loop (it finds the tools in
            ``state.tools``); the session stays open until it returns.
        show_reset: Add the observation of ``reset`` to the conversation as a user message.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        client = await make_client(env)
        try:
            result = await client.reset(**reset_kwargs(state.metadata))  # connects
            episode = state.store_as(OpenEnvEpisode)
            episode.done = bool(result.done)  # some games can be over at reset
            state.tools = await env_tools(client, episode, tools)
            if show_reset:
                text = json.dumps(_observation(result), default=str)
                state.messages.append(ChatMessageUser(content=f"The episode begins: {text}"))
            if agent is not None:
                return await agent(state, generate)
            return await _play(state, generate, episode, max_turns)
        finally:
            await client.close()

    return solve


async def _play(
    state: TaskState, generate: Generate, episode: OpenEnvEpisode, max_turns: int
) -> TaskState:
    """Model turns until the episode ends, the model stops calling tools, or a limit."""
    for _ in range(max_turns):
        if episode.done:
            break
        state = await generate(state, tool_calls="single")
        if state.completed or not state.output.message.tool_calls:
            break
    return state


async def make_client(env: EnvSource) -> Any:
    """A new client from ``env`` (see :data:`EnvSource`); its first call connects it."""
    made = GenericEnvClient(base_url=env) if isinstance(env, str) else env()
    return await made if isawaitable(made) else made


def reset_kwargs(metadata: dict[str, Any]) -> dict[str, Any]:
    """The arguments of ``reset`` for a sample: ``seed`` and ``options`` of its metadata."""
    options = dict(metadata.get("options") or {})
    if metadata.get("seed") is not None:
        options["seed"] = metadata["seed"]
    return options


# -- the tools ----------------------------------------------------------------------------


async def env_tools(
    client: Any, episode: OpenEnvEpisode, mode: ToolsMode = "auto"
) -> list[ToolDef]:
    """The Inspect tools of ``client``'s session (see the module docstring); every step is
    recorded in ``episode``."""
    listed = await _listed_tools(client) if mode != "step" else []
    if mode == "mcp" and not listed:
        raise ValueError(f"{client.base_url} has no MCP tools; use tools='step' or 'auto'")
    if listed:
        return [_mcp_tool(client, episode, tool) for tool in listed]
    return [_step_tool(client, episode, await action_schema(client))]


async def _listed_tools(client: Any) -> list[Tool]:
    try:
        return await client.list_tools()
    except (ServerError, ToolCallError):
        return []  # not a tool environment


def _mcp_tool(client: Any, episode: OpenEnvEpisode, tool: Tool) -> ToolDef:
    async def execute(**arguments: Any) -> str:
        action = {"type": "call_tool", "tool_name": tool.name, "arguments": arguments}
        observation = await _step(client, episode, action)
        error = observation.get("error")
        if error:
            raise ToolError(str(error.get("message", error)))
        return _tool_text(observation.get("result"))

    return ToolDef(
        execute,
        name=tool.name,
        description=tool.description or tool.name,
        parameters=tool_params(tool.input_schema),
    )


def _step_tool(client: Any, episode: OpenEnvEpisode, schema: dict[str, Any]) -> ToolDef:
    async def execute(**fields: Any) -> str:
        observation = await _step(client, episode, fields)
        return json.dumps(observation, default=str)

    summary = schema.get("description") or "Take one step in the environment with this action."
    return ToolDef(
        execute,
        name=STEP_TOOL,
        description=f"{summary} Answers with the observation, the reward and whether it is done.",
        parameters=tool_params(schema, hide=HIDDEN_ACTION_FIELDS),
    )


async def _step(client: Any, episode: OpenEnvEpisode, action: dict[str, Any]) -> dict[str, Any]:
    """One step; the observation as a dict with ``reward`` and ``done``. Refusals become tool
    errors the model reads."""
    try:
        result = await client.step(action)
    except (InvalidAction, ResetNeeded) as exc:
        episode.refused += 1
        raise ToolError(exc.message) from None
    episode.rewards = [*episode.rewards, float(result.reward or 0.0)]
    episode.steps += 1
    episode.done = bool(result.done)
    return _observation(result)


def _observation(result: Any) -> dict[str, Any]:
    observation = result.observation
    if isinstance(observation, BaseModel):
        observation = observation.model_dump(mode="json")
    fields = {k: v for k, v in dict(observation).items() if k not in ("reward", "done")}
    if not fields.get("metadata"):
        fields.pop("metadata", None)
    return {**fields, "reward": result.reward, "done": result.done}


def _tool_text(result: Any) -> str:
    """What a tool returned, as the model reads it: its text content, else its data as JSON."""
    if isinstance(result, dict):
        texts = [c.get("text", "") for c in result.get("content") or [] if c.get("type") == "text"]
        if texts:
            return "\n".join(texts)
        result = result.get("data", result)
    return result if isinstance(result, str) else json.dumps(result, default=str)


# -- schemas ------------------------------------------------------------------------------


async def action_schema(client: Any) -> dict[str, Any]:
    """The JSON schema of the env's action: from the client's model, else the server's
    ``/schema``."""
    action_cls = type(client)._models()[0]
    if isinstance(action_cls, type) and issubclass(action_cls, BaseModel):
        return action_cls.model_json_schema()
    headers = dict(client._headers)
    if client._token:
        headers["Authorization"] = f"Bearer {client._token}"
    async with httpx.AsyncClient(headers=headers) as http:
        reply = await http.get(f"{client.base_url}/schema")
        reply.raise_for_status()
        return reply.json()["action"]


def tool_params(schema: dict[str, Any], hide: tuple[str, ...] = ()) -> ToolParams:
    """Inspect's parameters from a JSON object schema: local ``$ref`` inlined, ``hide``
    fields left out, every parameter described (some model APIs require it)."""
    inlined = _inline_refs(schema, schema.get("$defs") or schema.get("definitions") or {})
    properties = {k: v for k, v in (inlined.get("properties") or {}).items() if k not in hide}
    params = ToolParams(
        properties=properties,
        required=[name for name in inlined.get("required") or [] if name in properties],
        additionalProperties=inlined.get("additionalProperties", False),
    )
    for name, param in params.properties.items():
        param.description = param.description or name
    return params


def _inline_refs(node: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """``node`` with ``{"$ref": "#/$defs/X"}`` replaced by ``X`` (recursive models: cut at
    depth 32, where the model sees an object of any shape) and ``const`` as a one-value
    ``enum``."""
    if isinstance(node, list):
        return [_inline_refs(item, defs, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        if depth >= 32:
            return {"type": "object"}
        target = defs.get(ref.rsplit("/", 1)[-1], {})
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _inline_refs(merged, defs, depth + 1)
    plain = {k: _inline_refs(v, defs, depth) for k, v in node.items() if k != "$defs"}
    if "const" in plain and "enum" not in plain:
        plain["enum"] = [plain["const"]]  # Inspect's schema has no "const"
    return plain


# -- the scorer ---------------------------------------------------------------------------


@scorer(metrics=[mean(), stderr()])
def openenv_reward(reduce: Literal["total", "last"] = "total") -> Scorer:
    """Score a sample with the environment's reward: the episode's ``total`` (sum of every
    step's reward) or its ``last`` step's. A sample that took no step scores 0."""

    async def score(state: TaskState, target: Target) -> Score:
        episode = state.store_as(OpenEnvEpisode)
        rewards = episode.rewards
        value = sum(rewards) if reduce == "total" else (rewards[-1] if rewards else 0.0)
        ended = "ended" if episode.done else "did not end"
        return Score(
            value=value,
            explanation=f"{episode.steps} steps, rewards {rewards}; the episode {ended}",
            metadata=episode.model_dump(),
        )

    return score


__all__ = [
    "EnvSource",
    "OpenEnvEpisode",
    "action_schema",
    "env_tools",
    "make_client",
    "openenv_agent",
    "openenv_reward",
    "reset_kwargs",
    "tool_params",
]
