"""The capture proxy's core, without HTTP: a dialect request in, the upstream call, the node
recorded, the reply in the dialect out. :mod:`.server` puts it on the wire."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from openenv.core.harness.capture.accumulate import StreamAccumulator
from openenv.core.harness.capture.dialects import ChatReply, Dialect, DialectCall
from openenv.core.harness.capture.fixes import BY_NAME
from openenv.core.harness.capture.graph import CaptureNode
from openenv.core.harness.capture.level import CaptureLevel
from openenv.core.harness.capture.result import AppliedFix, CaptureResult
from openenv.core.harness.capture.sampling import (
    evaluation_sampling,
    pin_sampling,
    training_sampling,
)
from openenv.core.harness.capture.sessions import MAX_CALLS, CaptureSession, SessionStore
from openenv.core.harness.capture.tokens import call_tokens
from openenv.core.harness.capture.upstream import Upstream

MAX_BODY_BYTES = 16 * 1024 * 1024


@dataclass
class Answer:
    """What one agent call gets back: the reply, and whether to stream it."""

    reply: ChatReply
    call: DialectCall
    node: CaptureNode


class CaptureProxy:
    """Sessions, the upstream endpoint and the capture level of one proxy."""

    def __init__(
        self,
        upstream: Upstream,
        level: CaptureLevel | None = None,
        *,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_sessions: int = 4096,
    ) -> None:
        self.upstream = upstream
        self.level = level or CaptureLevel()
        self.sessions = SessionStore(max_sessions=max_sessions)
        self.max_body_bytes = max_body_bytes

    def open_session(
        self,
        label: str = "",
        sampling: dict[str, Any] | None = None,
        *,
        eval_sampling: dict[str, Any] | None = None,
        max_calls: int | None = None,
    ) -> str:
        """Mint a capture session for one rollout; the id is the agent's API key. ``sampling``
        (a training policy: a temperature, nothing truncated) or ``eval_sampling`` (an eval
        run's: temperature, top-p, top-k; its capture is then eval only) is pinned on each of
        its calls over what the agent asks, both recorded on the node; ``ValueError`` for a
        policy that is neither, or both given. ``max_calls``: its call budget (default
        :data:`.sessions.MAX_CALLS`); a call past it is refused (429) and counted."""
        if sampling is not None and eval_sampling is not None:
            raise ValueError("give sampling (a training policy) or eval_sampling, not both")
        policy = training_sampling(sampling) or evaluation_sampling(eval_sampling)
        budget = MAX_CALLS if max_calls is None else max(1, min(max_calls, MAX_CALLS))
        eval_only = eval_sampling is not None
        opened = self.sessions.open(label, sampling=policy, max_calls=budget, eval_only=eval_only)
        return opened.session_id

    def result(self, session_id: str) -> CaptureResult:
        """The session's capture so far, stamped with the level and the applied fixes."""
        session = self.sessions.get(session_id)
        if session is None:
            raise KeyError(f"no capture session {session_id!r}")
        return self._result(session)

    def close_session(self, session_id: str) -> CaptureResult:
        """End the session (its key stops working) and return its capture."""
        session = self.sessions.close(session_id)
        if session is None:
            raise KeyError(f"no capture session {session_id!r}")
        return self._result(session)

    def _result(self, session: CaptureSession) -> CaptureResult:
        fixes = [AppliedFix(name=n, effect=BY_NAME[n].effect) for n in session.fixes]
        return CaptureResult(
            session_id=session.session_id,
            label=session.label,
            rollout_type="eval" if session.eval_only else self.level.rollout_type,
            eval_sampled=session.eval_only,
            capture_level=self.level.capture_level,
            probe=self.level,
            fixes=fixes,
            nodes=[n.model_copy(deep=True) for n in session.graph.nodes],
            budget_stop_count=session.budget_stops,
        )

    async def handle(self, session: CaptureSession, dialect: Dialect, call: DialectCall) -> Answer:
        """Forward one normalised call upstream and record it as a node of the session's graph."""
        node_id = session.next_node_id()
        chat, asked, sent = pin_sampling(call.chat, session.sampling)
        upstream = await self.upstream.complete(chat, want_tokens=self.level.wants_tokens)
        sampled = {"requested_sampling_params": asked, "sampling_params": sent}
        node = self._record(session, node_id, dialect, call, upstream.body, upstream.fixes, sampled)
        return Answer(ChatReply.from_body(upstream.body), call, node)

    async def handle_stream(
        self, session: CaptureSession, dialect: Dialect, call: DialectCall
    ) -> AsyncIterator[str]:
        """Open a streamed upstream call (errors raise here, before any byte is sent) and
        return the agent's events, relayed as text arrives; the node is recorded at the end,
        also when the agent hangs up early."""
        node_id = session.next_node_id()
        chat, asked, sent = pin_sampling(call.chat, session.sampling)
        upstream = await self.upstream.stream(chat, want_tokens=self.level.wants_tokens)
        sampled = {"requested_sampling_params": asked, "sampling_params": sent}

        async def events() -> AsyncIterator[str]:
            acc, writer = StreamAccumulator(), dialect.writer(call)
            recorded = False
            try:
                for event in writer.open():
                    yield event
                async for chunk in upstream.chunks():
                    delta = acc.feed(chunk)
                    if delta:
                        for event in writer.text(delta):
                            yield event
                body = acc.body()
                # Recorded before the last events go out: an agent that has its answer may
                # close the session at once.
                self._record(session, node_id, dialect, call, body, upstream.fixes, sampled)
                recorded = True
                for event in writer.finish(ChatReply.from_body(body)):
                    yield event
            finally:
                await upstream.aclose()
                if not recorded:  # the agent hung up, or the endpoint broke, mid-stream
                    fixes = upstream.fixes
                    self._record(session, node_id, dialect, call, acc.body(), fixes, sampled)

        return events()

    def _record(
        self,
        session: CaptureSession,
        node_id: str,
        dialect: Dialect,
        call: DialectCall,
        body: dict[str, Any],
        fixes: list[str],
        sampled: dict[str, dict[str, Any]] | None = None,
    ) -> CaptureNode:
        for fix in fixes:
            if fix not in session.fixes:
                session.fixes.append(fix)
        tokens = call_tokens(body)
        node = CaptureNode(
            node_id=node_id,
            seq=int(node_id[1:]),
            dialect=dialect.name,
            prompt_token_ids=tokens.prompt_ids,
            completion_token_ids=tokens.completion_ids,
            per_token_logps=tokens.logprobs,
            messages=_messages(call.chat),
            reply=tokens.message,
            finish_reason=tokens.finish_reason,
            **(sampled or {}),
        )
        session.graph.add(node)
        return node


def _messages(chat: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in chat.get("messages", []) if isinstance(m, dict)]
