"""The session manager: the one owner of every environment instance on a server.

/ws connections, playground tabs and one-shot HTTP calls all open sessions here, so capacity,
idle reaping and "one call at a time per session" hold for every entry point.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
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
    wait_pool,
)

log = logging.getLogger("openenv.server")

DEFAULT_CALL_TIMEOUT_S = 60.0  # a sync env call longer than this ends its session

CloseHook = Callable[[str], Awaitable[None] | None]
KEPT_REWARDS = 1000  # of the current episode, for a watcher's reward chart
HANDLE_SEP = "."  # between a session's id and a key (neither ever holds one: base64url)


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
    """One environment instance and its bookkeeping. Created only by :class:`SessionManager`.

    ``id`` is the session's handle, given only to its creator: a public part
    (:attr:`public_id`, what watch lists and logs show) and the owner's secret key. Attaching
    to the session (``/ws?session_id=``, MCP's ``session_id``) takes the whole handle; the
    public part alone serves the operator only (:meth:`SessionManager.attach`)."""

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
    # A read-only secret: a watch link carries it, and it cannot act on the session.
    watch_key: str = field(default_factory=lambda: secrets.token_urlsafe(18))

    def touch(self) -> None:
        self.last_active = time.monotonic()

    @property
    def public_id(self) -> str:
        """The name a watch list, a log or an error shows: the id without its owner's key.
        It attaches nothing."""
        return self.id.partition(HANDLE_SEP)[0]

    @property
    def watch_ref(self) -> str:
        """The read-only name of the session for a watch link: its public id and watch key."""
        return f"{self.public_id}{HANDLE_SEP}{self.watch_key}"


def _unknown(ref: str) -> str:
    public = ref.partition(HANDLE_SEP)[0][:64]
    return (
        f"no open session {public!r} for this key: it closed, or this client is not its owner "
        "(attaching needs the handle its creator was given, or the server's API token)"
    )


def _leave(session: Session) -> None:
    session.busy -= 1
    session.touch()


def _failure(session: Session, exc: Exception) -> ExecutionError:
    """What the caller gets when environment code raised: the error, named (and logged)."""
    log.exception("environment raised in session %s", session.public_id)
    return ExecutionError(f"{type(exc).__name__}: {exc}")


def _call_stats(session: Session) -> CallStats:
    """A new scheduling record for ``session``: its quota owner and its env's STEP_KIND."""
    kind = getattr(type(session.env), "STEP_KIND", "auto")
    return CallStats(owner=session.owner, kind=kind if kind in ("io", "cpu") else "auto")


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
        self.waits = wait_pool(max_sessions, call_timeout_s)  # threads made as calls wait
        self.per_client = per_client or None  # sessions one client may hold (None: no limit)
        self.unused_timeout_s = unused_timeout_s or None
        self.scheduler = scheduler or scheduler_for(inline_budget_s, self.pool, self.waits)
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
        # The handle: a public id, and the owner's key that attaching takes (attach()).
        handle = f"{kind}-{secrets.token_urlsafe(18)}{HANDLE_SEP}{secrets.token_urlsafe(18)}"
        session = Session(id=handle, kind=kind, owner=owner)
        session.calls.owner = owner
        self._sessions[session.id] = session
        self._ensure_reaper()
        try:
            session.env = await asyncio.to_thread(self._factory)
            if isinstance(session.env, Environment):
                session.env.session_owner = owner
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

    def attach(self, ref: str, *, operator: bool = False) -> Session:
        """The session ``ref`` names, for acting on it: its handle (:attr:`Session.id`), or
        its public id for the ``operator`` (a holder of the server's API token). Anything
        else is answered like an unknown session: nothing says whether it exists."""
        session = self._sessions.get(ref)
        if session is None and operator:
            session = self._public(ref)
        if session is None:
            raise SessionNotFound(_unknown(ref))
        return session

    def watched(self, ref: str, *, operator: bool = False) -> Session:
        """The session ``ref`` names, for watching it: its handle, its read-only
        :attr:`Session.watch_ref`, or its public id for the ``operator``."""
        public, _, key = ref.partition(HANDLE_SEP)
        session = self._sessions.get(ref) or self._public(public)
        if session is not None and (
            (operator and not key)
            or session.id == ref
            or hmac.compare_digest(key.encode(), session.watch_key.encode())
        ):
            return session
        raise SessionNotFound(_unknown(ref))

    def _public(self, public_id: str) -> Session | None:
        prefix = public_id + HANDLE_SEP
        return next((s for k, s in self._sessions.items() if k.startswith(prefix)), None)

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
        self.waits.shutdown()

    async def _abandon(self, session: Session, overran: CallOverran, what: str) -> ExecutionError:
        """A call of ``session`` ran past the time limit: end the session now (its slot is
        free, its socket told why) and close its environment once the call returns."""
        env, session.env = session.env, None
        reason = f"its {what} ran past its {overran.limit_s:g} s limit"
        log.warning("session %s: %s; the session is ended", session.public_id, reason)
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
        # after it run in the pool until they prove fast again. A session whose calls wait
        # keeps waiting among the many threads (a call that computes sends it back).
        old = session.calls
        session.calls = _call_stats(session)
        if old.sorted and not session.calls.sorted:
            session.calls.waits, session.calls.sorted = old.waits, True

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
            limit = self._idle_limit(s)
            if s.busy == 0 and limit is not None and s.last_active < now - limit:
                stale.append((s.id, limit, s.used))
        for session_id, limit, used in stale:
            public = session_id.partition(HANDLE_SEP)[0]
            log.info("closing %s session %s", "idle" if used else "unused", public)
            what = "idle" if used else "unused"
            await self.close(session_id, f"{what} for more than {limit:g}s")
        return len(stale)

    def _idle_limit(self, s: Session) -> float | None:
        """How long ``s`` may stay idle before :meth:`reap` closes it (``None``: never)."""
        if s.used and s.connections:
            return None
        # A session nobody used goes sooner, when it counts against an outside client.
        return self.idle_timeout_s if s.used or s.owner is None else self._unused_limit()

    def next_idle_close_s(self) -> float | None:
        """Seconds until :meth:`reap` closes the next idle session if nobody uses it first (a
        full server's expected wait at the latest), or ``None`` when no session would be."""
        now, waits = time.monotonic(), []
        for s in self._sessions.values():
            limit = self._idle_limit(s)
            if limit is not None:
                waits.append(max(0.0, s.last_active + limit - now))
        return min(waits) if waits else None

    def _unused_limit(self) -> float | None:
        """How long a session nobody used may live: the unused timeout, within the idle one."""
        limits = [t for t in (self.idle_timeout_s, self.unused_timeout_s) if t is not None]
        return min(limits) if limits else None
