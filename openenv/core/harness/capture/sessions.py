"""Capture sessions: one per rollout. Its id is the API key the agent is given.

An id is minted with 192 random bits and looked up in constant time; a key that is not a live
session is refused, so a proxy reachable from a sandbox serves only the rollouts it was told of.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from openenv.core.harness.capture.graph import RolloutGraph

PREFIX = "cap-"
MAX_SESSIONS = 4096
MAX_CALLS = 2000
IDLE_SECONDS = 6 * 3600.0


class SessionLimit(RuntimeError):
    """Too many open sessions, or a session over its call budget."""


@dataclass
class CaptureSession:
    """One rollout's capture: its graph and the fixes applied to its calls."""

    session_id: str
    label: str = ""
    created: float = field(default_factory=time.time)
    graph: RolloutGraph = field(default_factory=RolloutGraph)
    fixes: list[str] = field(default_factory=list)
    max_calls: int = MAX_CALLS
    calls: int = 0  # calls started, finished or not (parallel subagents share a session)
    budget_stops: int = 0  # calls refused past ``max_calls``
    last_used: float = field(default_factory=time.monotonic)
    # the sampling pinned on every call (:func:`.sampling.pin_sampling`): a training rollout's
    # policy, or an eval run's own (``eval_only``: then its capture is never trained on)
    sampling: dict[str, float | int] = field(default_factory=dict)
    eval_only: bool = False

    def next_node_id(self) -> str:
        """Reserve the id of a new call (``n0001``...), or :class:`SessionLimit` past the
        budget. Reserved when the call starts, so concurrent calls never share an id."""
        if self.calls >= self.max_calls:
            self.budget_stops += 1
            raise SessionLimit(f"session over its budget of {self.max_calls} model calls")
        self.calls += 1
        self.last_used = time.monotonic()
        return f"n{self.calls:04d}"


class SessionStore:
    """The live sessions of one proxy."""

    def __init__(
        self, *, max_sessions: int = MAX_SESSIONS, idle_seconds: float = IDLE_SECONDS
    ) -> None:
        self._sessions: dict[str, CaptureSession] = {}
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds

    def open(
        self,
        label: str = "",
        *,
        max_calls: int = MAX_CALLS,
        sampling: dict[str, float | int] | None = None,
        eval_only: bool = False,
    ) -> CaptureSession:
        """Mint a session; its ``session_id`` is the key to hand the agent. ``sampling``: a
        checked training policy every call of it is sent with. When the store is full,
        sessions idle for ``idle_seconds`` (an orchestrator that never closed them) go first;
        a store still full refuses."""
        if len(self._sessions) >= self.max_sessions:
            self.evict_idle()
        if len(self._sessions) >= self.max_sessions:
            raise SessionLimit(f"{self.max_sessions} capture sessions are open; close some first")
        session = CaptureSession(
            PREFIX + secrets.token_urlsafe(24),
            label[:200],
            max_calls=max_calls,
            sampling=dict(sampling or {}),
            eval_only=eval_only,
        )
        self._sessions[session.session_id] = session
        return session

    def evict_idle(self) -> list[str]:
        """Forget sessions unused for ``idle_seconds``; returns their ids."""
        cutoff = time.monotonic() - self.idle_seconds
        idle = [sid for sid, s in self._sessions.items() if s.last_used < cutoff]
        for sid in idle:
            del self._sessions[sid]
        return idle

    def get(self, key: str | None) -> CaptureSession | None:
        """The session whose id is ``key``, if it is live."""
        if not key or not key.startswith(PREFIX) or len(key) > 100:
            return None
        return self._sessions.get(key)

    def close(self, session_id: str) -> CaptureSession | None:
        """Forget a session (its key stops working) and return it."""
        return self._sessions.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._sessions)
