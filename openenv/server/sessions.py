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

log = logging.getLogger("openenv.server")

CloseHook = Callable[[str], Awaitable[None] | None]


# A sync env call this short costs less than the hop to a worker thread, so a session whose
# calls average under the budget runs them on the event loop. The average moves slowly and an
# inline reading counts for at most SPIKE_CAP budgets, so that a call the OS preempted does not
# send a fast session away. SLOW_STRIKES inline calls longer than SLOW_LIMIT_S send it to the
# worker pool for good (a strike expires after STRIKE_EXPIRY calls). Readings taken in the pool
# include waiting for the GIL, which a busy event loop holds, so a pooled session that may be
# fast (average under SLOW_LIMIT_S) retries one call inline every RETRY_FIRST pooled calls,
# twice as rarely after each miss.
INLINE_BUDGET_S = 0.001
SLOW_LIMIT_S = 0.01
SLOW_STRIKES = 3
STRIKE_EXPIRY = 1000
INLINE_AFTER = 3
SPIKE_CAP = 4
RETRY_FIRST = 32
_WEIGHT = 0.1


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
    sync_calls: int = 0  # sync env calls made so far
    sync_avg_s: float = 0.0  # moving average of their duration
    inline: bool = False  # sync calls run on the event loop (they proved fast)
    slow_strikes: int = 0  # inline calls that took longer than SLOW_LIMIT_S
    retry_in: int = RETRY_FIRST  # pooled calls until the next inline retry
    retry_gap: int = 0  # pooled calls between inline retries (doubles after each miss)

    def touch(self) -> None:
        self.last_active = time.monotonic()


def _timed(fn: Callable[..., Any], args: tuple[Any, ...], took: list[float]) -> Any:
    start = time.perf_counter()
    try:
        return fn(*args)
    finally:
        took.append(time.perf_counter() - start)


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
    Sync environment methods run in the shared worker pool; a session whose calls prove fast
    (under ``inline_budget_s``, the cost of the thread hop) runs them on the event loop instead
    until one overruns the budget (``inline_budget_s=0`` disables this). An idle session holds
    no thread. Calls on one session are serialised by its lock.
    """

    def __init__(
        self,
        env_factory: Callable[[], Environment],
        *,
        max_sessions: int = 256,
        idle_timeout_s: float | None = 600.0,
        inline_budget_s: float = INLINE_BUDGET_S,
    ) -> None:
        self._factory = env_factory
        self.inline_budget_s = inline_budget_s
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
        """Run sync env code inline when the session has proved fast, else in a worker."""
        if session.inline or self._retry_due(session):
            start = time.perf_counter()
            try:
                return fn(*args)
            finally:
                self._learn(session, time.perf_counter() - start, inline=True)
        took: list[float] = []
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(None, _timed, fn, args, took)
        finally:
            if took:
                self._learn(session, took[0], inline=False)

    def _retry_due(self, session: Session) -> bool:
        """Whether this pooled call should be tried inline (see RETRY_FIRST)."""
        if (
            self.inline_budget_s <= 0
            or session.slow_strikes >= SLOW_STRIKES
            or session.sync_calls < INLINE_AFTER
            or session.sync_avg_s > SLOW_LIMIT_S
        ):
            return False
        session.retry_in -= 1
        return session.retry_in <= 0

    def _learn(self, session: Session, took: float, *, inline: bool) -> None:
        budget = self.inline_budget_s
        if inline and took > SLOW_LIMIT_S:
            session.slow_strikes += 1
        elif session.slow_strikes and session.sync_calls % STRIKE_EXPIRY == 0:
            session.slow_strikes -= 1  # a rare preempted call must not add up over hours
        sample = min(took, SPIKE_CAP * budget) if inline else took
        session.sync_calls += 1
        weight = max(_WEIGHT, 1 / session.sync_calls)  # the plain mean of the first readings
        avg = session.sync_avg_s = session.sync_avg_s + weight * (sample - session.sync_avg_s)
        allowed = session.slow_strikes < SLOW_STRIKES and session.sync_calls >= INLINE_AFTER
        if inline and not session.inline:  # a retry: one fast reading brings the session back
            session.inline = allowed and took <= budget
            if session.inline:
                session.sync_avg_s, session.retry_gap = took, 0
            else:
                session.retry_gap = 2 * (session.retry_gap or RETRY_FIRST)
            session.retry_in = session.retry_gap or RETRY_FIRST
            return
        was_inline, session.inline = session.inline, allowed and avg <= budget
        if was_inline and not session.inline:
            session.retry_in = session.retry_gap or RETRY_FIRST

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
