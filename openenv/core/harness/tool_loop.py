"""A white-box harness: the trainer samples every turn, the session's tools act.

:class:`MCPHarnessAdapter` (the name ``openenv`` 0.10 gives it) drives a
:class:`~openenv.core.harness.session.ResourceSession` with the trainer's ``model_step``: the
session's first messages and tools go to the sampler, each tool call of the reply runs through
``session.call_tool`` and its result comes back as a ``tool`` message, until a reply calls no
tool, a tool says the episode is done, or a limit of :class:`HarnessRunLimits` is reached. The
sampled ids and logprobs of every turn are kept in order, so the trainer trains on exactly what
it sampled; rewarding is the session's (``session.verify``), not this loop's.

TRL's ``HarnessRolloutWorker`` takes it as ``harness_adapter=MCPHarnessAdapter()`` and calls
the session factory without a sampling policy (it samples itself).
"""

from __future__ import annotations

import json
from typing import Any

from openenv.core.harness.session import (
    HarnessAdapter,
    HarnessRolloutResult,
    HarnessRunLimits,
    Message,
    ModelStep,
    ResourceSession,
    RolloutEvent,
    ToolResult,
    ToolTraceEntry,
)

MAX_TOOL_TEXT = 64 * 1024  # of one tool result, as the model reads it


def tool_text(result: ToolResult) -> str:
    """A tool's result as the ``tool`` message the model reads: its error, or its data (text
    as is, anything else as JSON), cut at :data:`MAX_TOOL_TEXT` characters."""
    if result.error is not None:
        text = f"error: {result.error}"
    elif isinstance(result.data, str):
        text = result.data
    else:
        text = json.dumps(result.data, default=str)
    if len(text) > MAX_TOOL_TEXT:
        text = text[:MAX_TOOL_TEXT] + f"\n… ({len(text) - MAX_TOOL_TEXT} more characters)"
    return text


class MCPHarnessAdapter(HarnessAdapter):
    """A tool-calling loop over a session's tools, each turn sampled by the trainer."""

    def run_white_box(
        self,
        model_step: ModelStep,
        session: ResourceSession,
        limits: HarnessRunLimits | None = None,
    ) -> HarnessRolloutResult:
        limits = limits or HarnessRunLimits()
        messages: list[Message] = list(session.initial_messages())
        tools = session.list_tools()
        out = HarnessRolloutResult(messages=messages)
        for turn in range(limits.max_turns):
            step = model_step(list(messages), tools, dict(limits.sampling))
            reply = step.response
            messages.append(reply.to_message_dict())
            out.prompt_ids += step.prompt_ids
            out.completion_ids += step.completion_ids
            out.logprobs += step.logprobs
            asked = [{"id": c.id, "name": c.name, "arguments": c.args} for c in reply.tool_calls]
            payload = {"turn": turn, "content": reply.content, "tool_calls": asked}
            out.events.append(RolloutEvent("model_response", payload))
            if not reply.tool_calls:
                out.done = True
                break
            if self._act(session, reply.tool_calls, limits, messages, out):
                break
        out.messages = list(messages)
        out.metrics.setdefault("turns", sum(e.type == "model_response" for e in out.events))
        out.metrics.setdefault("tool_calls", len(out.tool_trace))
        return out

    def _act(
        self,
        session: ResourceSession,
        calls: list[Any],
        limits: HarnessRunLimits,
        messages: list[Message],
        out: HarnessRolloutResult,
    ) -> bool:
        """Run one reply's tool calls; True when the rollout ends here (done, or a limit)."""
        if limits.max_tool_calls_per_turn is not None:
            calls = calls[: limits.max_tool_calls_per_turn]
        for call in calls:
            if (
                limits.max_total_tool_calls is not None
                and len(out.tool_trace) >= limits.max_total_tool_calls
            ):
                out.metrics["truncated"] = True
                return True
            try:
                result = session.call_tool(call.name, dict(call.args))
            except (KeyError, ValueError, RuntimeError) as exc:  # a bad call is the model's
                result = ToolResult(error=f"{type(exc).__name__}: {exc}")
            out.tool_trace.append(ToolTraceEntry(call.name, dict(call.args), result))
            payload = {"tool_name": call.name, "arguments": dict(call.args), "done": result.done}
            out.events.append(RolloutEvent("tool_call", payload))
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "name": call.name,
                    "content": tool_text(result),
                }
            )
            if result.done:
                out.done = True
                return True
        return False

    def run_black_box(
        self, session: ResourceSession, limits: HarnessRunLimits | None = None
    ) -> HarnessRolloutResult:
        """Refused: this loop has no model of its own; the trainer samples (white box)."""
        raise NotImplementedError(
            "MCPHarnessAdapter samples through the trainer's model_step: use run_white_box"
        )
