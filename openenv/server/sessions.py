"""The session manager: the one owner of every environment instance on a server.

/ws connections, playground tabs and one-shot HTTP calls all open sessions here, so capacity,
idle reaping and "one call at a time per session" hold for every entry point.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from openenv.core.environment import Environment, overrides
from openenv.core.errors import (
    CapacityReached,
    ExecutionError,
    FactoryError,
    OpenEnvError,
    SessionNotFound,
)
from openenv.core.types import Action, Observation, State
from openenv.server.scheduling import CallStats, Scheduler, Tuning, scheduler_for

log = logging.getLogger("openenv.server")

CloseHook = Callable[[str], Awaitable[None] | None]


@dataclass(eq=False, slots=True)
class Session:
    """One environment instance and its bookkeeping. Created only by :class:`SessionManager`."""

    id: str
    kind: str
    env: Environment | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    created_at: float = field(default_factory=time.monotonic)
    last_active: float = field(default_factory=time.monotonic)
    busy: int = 0
    closed: bool = False
    on_close: list[CloseHook] = field(default_factory=list)
    calls: CallStats = field(default_factory=CallStats)  # its scheduler's record

    def touch(self) -> None:
        self.last_active = time.monotonic()


def _leave(session: Session) -> None:
    session.busy -= 1
    session.touch()


def _failure(session: Session, exc: Exception) -> ExecutionError:
    """What the caller gets when environment code raised: the error, named (and logged)."""
    log.exception("environment raised in session %s", session.id)
    return ExecutionError(f"{type(exc).__name__}: {exc}")


def _read_state(env: Environment) -> State:
    return env.state


class SessionManager:
    """Creates, runs and closes sessions.

    ``max_sessions`` bounds live sessions (a refused open raises ``CapacityReached``).
    ``idle_timeout_s`` closes sessions nobody used for that long (``None`` or 0 disables it).
    Sync environment methods run where ``scheduler`` says (:mod:`openenv.server.scheduling`):
    by default in the shared worker pool until a session's calls prove shorter than
    ``inline_budget_s`` (the cost of the thread hop), then on the event loop;
    ``inline_budget_s=0`` (or ``scheduler=WorkerThreads()``) keeps every call in the pool. An
    idle session holds no thread. Calls on one session are serialised by its lock.
    """

    def __init__(
        self,
        env_factory: Callable[[], Environment],
        *,
        max_sessions: int = 256,
        idle_timeout_s: float | None = 600.0,
        inline_budget_s: float = Tuning.budget_s,
        scheduler: Scheduler | None = None,
    ) -> None:
        self._factory = env_factory
        self.scheduler = scheduler or scheduler_for(inline_budget_s)
        self.max_sessions = max_sessions
        self.idle_timeout_s = idle_timeout_s or None
        self._sessions: dict[str, Session] = {}
        self._reaper: asyncio.Task[None] | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def active(self) -> int:
        return len(self._sessions)

    def sessions(self) -> list[Session]:
        return list(self._sessions.values())

    async def open(self, kind: str = "ws") -> Session:
        """Reserve a slot and build the environment; raise CapacityReached when full."""
        if len(self._sessions) >= self.max_sessions:
            raise CapacityReached(
                f"server is at capacity ({self.max_sessions} concurrent sessions); "
                "close a session or try again later"
            )
        # Unguessable: knowing an id is enough to attach to a session (/ws?session_id=, MCP).
        session = Session(id=f"{kind}-{secrets.token_urlsafe(18)}", kind=kind)
        self._sessions[session.id] = session
        self._ensure_reaper()
        try:
            session.env = await asyncio.to_thread(self._factory)
        except OpenEnvError:
            self._sessions.pop(session.id, None)
            raise
        except Exception as exc:  # the factory is user code: report it, keep serving
            self._sessions.pop(session.id, None)
            log.exception("environment factory failed")
            raise FactoryError(
                f"could not create the environment: {type(exc).__name__}: {exc}"
            ) from exc
        return session

    def get(self, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionNotFound(
                f"session {session_id!r} is closed or expired; open a new one with reset"
            )
        return session

    async def close(self, session_id: str, reason: str = "closed") -> None:
        session = self._sessions.pop(session_id, None)
        if session is None or session.closed:
            return
        session.closed = True
        for hook in session.on_close:
            with contextlib.suppress(Exception):
                result = hook(reason)
                if asyncio.iscoroutine(result):
                    await result
        env, session.env = session.env, None
        if env is not None:
            try:
                await asyncio.to_thread(env.close)
            except Exception:  # a failing close must not keep the slot
                log.exception("environment close() failed")

    async def shutdown(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        for session_id in list(self._sessions):
            await self.close(session_id, "server shutting down")

    # -- calls ----------------------------------------------------------------------------------

    async def reset(self, session: Session, **kwargs: Any) -> Observation:
        async def reset(env: Environment) -> Observation:
            if overrides(type(env), "reset_async"):
                return await env.reset_async(**kwargs)
            return await self._sync(session, functools.partial(env.reset, **kwargs))

        return await self.run(session, reset)

    async def step(self, session: Session, action: Action) -> Observation:
        # The hot path of every step: ``run`` spelled out, without its closure and extra
        # coroutine; the env's code runs inline when it has proved fast.
        async with session.lock:
            env = self._enter(session)
            try:
                if overrides(type(env), "step_async"):
                    return await env.step_async(action)
                return await self._sync(session, env.step, action)
            except OpenEnvError:
                raise
            except Exception as exc:  # environment code failed: a clear error, session kept
                raise _failure(session, exc) from exc
            finally:
                _leave(session)

    async def state(self, session: Session) -> State:
        return await self.call(session, _read_state)

    async def call(self, session: Session, fn: Callable[[Environment], Any]) -> Any:
        """Run a sync ``fn(env)`` (render, legal_actions, state…) without blocking the loop."""
        return await self.run(session, lambda env: self._sync(session, fn, env))

    async def _sync(self, session: Session, fn: Callable[..., Any], *args: Any) -> Any:
        """Run sync env code where the scheduler says (inline, or in a worker thread)."""
        return await self.scheduler.run(session.calls, fn, *args)

    async def run(self, session: Session, fn: Callable[[Environment], Awaitable[Any]]) -> Any:
        """Run ``await fn(env)`` holding the session's lock; map env failures to wire errors."""
        async with session.lock:
            env = self._enter(session)
            try:
                return await fn(env)
            except OpenEnvError:
                raise
            except Exception as exc:  # environment code failed: a clear error, session kept
                raise _failure(session, exc) from exc
            finally:
                _leave(session)

    @staticmethod
    def _enter(session: Session) -> Environment:
        """Start a call on ``session`` (its lock held): its env, or SessionNotFound if closed."""
        env = session.env
        if session.closed or env is None:
            raise SessionNotFound("this session was closed (idle timeout or disconnect)")
        session.busy += 1
        return env

    # -- idle reaping ---------------------------------------------------------------------------

    def _ensure_reaper(self) -> None:
        if self.idle_timeout_s is None or (self._reaper is not None and not self._reaper.done()):
            return
        self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def _reap_forever(self) -> None:
        interval = max(0.05, min(self.idle_timeout_s / 4, 5.0))
        while self._sessions:
            await asyncio.sleep(interval)
            await self.reap()

    async def reap(self) -> int:
        """Close sessions idle longer than the timeout; return how many were closed."""
        if self.idle_timeout_s is None:
            return 0
        cutoff = time.monotonic() - self.idle_timeout_s
        stale = [s.id for s in self._sessions.values() if s.busy == 0 and s.last_active < cutoff]
        for session_id in stale:
            log.info("closing idle session %s", session_id)
            await self.close(session_id, f"idle for more than {self.idle_timeout_s:g}s")
        return len(stale)
