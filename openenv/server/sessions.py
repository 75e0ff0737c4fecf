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
from collections import deque
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
from openenv.server.scheduling import (
    CallOverran,
    CallStats,
    Scheduler,
    Tuning,
    WorkerPool,
    scheduler_for,
)

log = logging.getLogger("openenv.server")

DEFAULT_CALL_TIMEOUT_S = 60.0  # a sync env call longer than this ends its session

CloseHook = Callable[[str], Awaitable[None] | None]
KEPT_REWARDS = 1000  # of the current episode, for a watcher's reward chart


@dataclass(slots=True)
class Progress:
    """What a watcher sees of a session without touching its environment: the episode's
    number, steps, rewards (the last KEPT_REWARDS), whether it is done, and a version that grows
    with every reset and step. Written in the session's own call path, O(1) per step."""

    episode: int = 0
    steps: int = 0
    total: float = 0.0
    last_reward: float | None = None
    done: bool = False
    version: int = 0
    rewards: deque[float] = field(default_factory=lambda: deque(maxlen=KEPT_REWARDS))

    def reset(self, obs: Observation) -> None:
        self.episode += 1
        self.steps, self.total, self.last_reward = 0, 0.0, None
        self.rewards.clear()
        self.done = bool(obs.done)
        self.version += 1

    def step(self, obs: Observation) -> None:
        reward = float(obs.reward) if isinstance(obs.reward, int | float) else 0.0
        self.steps += 1
        self.total += reward
        self.last_reward = reward
        self.rewards.append(reward)
        self.done = bool(obs.done)
        self.version += 1


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
    owner: str | None = None  # the client it counts against (None: nobody's quota)
    used: bool = False  # a call ran on it (an unused session is reaped sooner)
    connections: int = 0  # live WebSockets on it: while one is open it is never idle-reaped
    progress: Progress = field(default_factory=Progress)  # what a watcher sees

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


def _close_quietly(env: Environment) -> None:
    try:
        env.close()
    except Exception:  # the session is gone already: nothing to report it to
        log.exception("environment close() failed after an overrun")


class SessionManager:
    """Creates, runs and closes sessions.

    ``max_sessions`` bounds live sessions (a refused open raises ``CapacityReached``).
    ``idle_timeout_s`` closes sessions nobody used for that long (``None`` or 0 disables it),
    except those a live WebSocket holds (see :meth:`reap`).
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
        per_client: int | None = None,
        unused_timeout_s: float | None = 60.0,
        call_timeout_s: float | None = DEFAULT_CALL_TIMEOUT_S,
    ) -> None:
        self._factory = env_factory
        self.pool = WorkerPool(time_limit_s=call_timeout_s)
        self.per_client = per_client or None  # sessions one client may hold (None: no limit)
        self.unused_timeout_s = unused_timeout_s or None
        self.scheduler = scheduler or scheduler_for(inline_budget_s, self.pool)
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

    async def open(self, kind: str = "ws", owner: str | None = None) -> Session:
        """Reserve a slot and build the environment; raise CapacityReached when the server is
        full, or when ``owner`` (a client's address) already holds its share of the slots."""
        if len(self._sessions) >= self.max_sessions:
            raise CapacityReached(
                f"server is at capacity ({self.max_sessions} concurrent sessions); "
                "close a session or try again later"
            )
        if owner is not None and self.per_client and self._owned_by(owner) >= self.per_client:
            raise CapacityReached(
                f"this client already holds {self.per_client} sessions, the most one client "
                "may (MAX_SESSIONS_PER_CLIENT); close one, or send the server's API token"
            )
        # Unguessable: knowing an id is enough to attach to a session (/ws?session_id=, MCP).
        session = Session(id=f"{kind}-{secrets.token_urlsafe(18)}", kind=kind, owner=owner)
        session.calls.owner = owner
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

    def _owned_by(self, owner: str) -> int:
        return sum(1 for s in self._sessions.values() if s.owner == owner)

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
                if overrides(type(env), "close_async"):
                    await env.close_async()
                else:
                    await asyncio.to_thread(env.close)
            except Exception:  # a failing close must not keep the slot
                log.exception("environment close() failed")

    async def shutdown(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        for session_id in list(self._sessions):
            await self.close(session_id, "server shutting down")
        self.pool.shutdown()

    async def _abandon(self, session: Session, overran: CallOverran, what: str) -> ExecutionError:
        """A call of ``session`` ran past the time limit: end the session now (its slot is
        free, its socket told why) and close its environment once the call returns."""
        env, session.env = session.env, None
        reason = f"its {what} ran past its {overran.limit_s:g} s limit"
        log.warning("session %s: %s; the session is ended", session.id, reason)
        await self.close(session.id, reason)
        if env is not None:
            loop = asyncio.get_running_loop()
            overran.future.add_done_callback(
                lambda _: loop.run_in_executor(None, _close_quietly, env)
            )
        return ExecutionError(
            f"the environment's {what} ran past its {overran.limit_s:g} s limit and could not be "
            "interrupted: this session is closed, reset to start a new one"
        )

    # -- calls ----------------------------------------------------------------------------------

    async def reset(self, session: Session, **kwargs: Any) -> Observation:
        # A new record: the options may change what a step costs; the reset and the steps
        # after it run in the pool until they prove fast again.
        session.calls = CallStats(owner=session.owner)

        async def reset(env: Environment) -> Observation:
            if overrides(type(env), "reset_async"):
                return await env.reset_async(**kwargs)
            return await self._sync(session, functools.partial(env.reset, **kwargs))

        obs = await self.run(session, reset)
        session.progress.reset(obs)
        return obs

    async def step(self, session: Session, action: Action) -> Observation:
        # The hot path of every step: ``run`` spelled out, without its closure and extra
        # coroutine; the env's code runs inline when it has proved fast.
        async with session.lock:
            env = self._enter(session)
            try:
                if overrides(type(env), "step_async"):
                    obs = await env.step_async(action)
                else:
                    obs = await self._sync(session, env.step, action)
                session.progress.step(obs)
                return obs
            except OpenEnvError:
                raise
            except CallOverran as exc:
                raise await self._abandon(session, exc, "step") from None
            except Exception as exc:  # environment code failed: a clear error, session kept
                raise _failure(session, exc) from exc
            finally:
                _leave(session)

    async def state(self, session: Session) -> State:
        async def read(env: Environment) -> State:
            if overrides(type(env), "state_async"):
                return await env.state_async()
            return await self._sync(session, _read_state, env)

        return await self.run(session, read)

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
            except CallOverran as exc:
                raise await self._abandon(session, exc, "call") from None
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
        session.used = True
        return env

    # -- idle reaping ---------------------------------------------------------------------------

    def _ensure_reaper(self) -> None:
        if self._unused_limit() is None or (self._reaper is not None and not self._reaper.done()):
            return
        self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def _reap_forever(self) -> None:
        shortest = self._unused_limit() or 1.0
        interval = max(0.05, min(shortest / 4, 5.0))
        while self._sessions:
            await asyncio.sleep(interval)
            await self.reap()

    async def reap(self) -> int:
        """Close sessions idle longer than the timeout, and sessions nobody ever used longer
        than the (shorter) unused timeout; return how many were closed.

        Reaping is for abandoned sessions (a closed tab, a dead peer, a forgotten HTTP
        session). A used session with a WebSocket open is not idle however long it waits: a
        trainer's gradient step or evaluation can outlast any timeout, and a dead peer is found
        by the connection's keepalive pings instead, which close it (and so the session).
        """
        now, stale = time.monotonic(), []
        for s in self._sessions.values():
            if s.used and s.connections:
                continue
            # A session nobody used goes sooner, when it counts against an outside client.
            limit = self.idle_timeout_s if s.used or s.owner is None else self._unused_limit()
            if s.busy == 0 and limit is not None and s.last_active < now - limit:
                stale.append((s.id, limit, s.used))
        for session_id, limit, used in stale:
            log.info("closing %s session %s", "idle" if used else "unused", session_id)
            what = "idle" if used else "unused"
            await self.close(session_id, f"{what} for more than {limit:g}s")
        return len(stale)

    def _unused_limit(self) -> float | None:
        """How long a session nobody used may live: the unused timeout, within the idle one."""
        limits = [t for t in (self.idle_timeout_s, self.unused_timeout_s) if t is not None]
        return min(limits) if limits else None
