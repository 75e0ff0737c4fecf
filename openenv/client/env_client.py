"""EnvClient: a typed, async WebSocket client for an environment server.

Subclass it with your models and nothing else::

    class GridWorldEnv(EnvClient[GridWorldAction, GridWorldObservation, GridWorldState]):
        pass

Parsing comes from the models. Its methods return results in plain code and awaitables in
async code (:mod:`openenv.client.modes`); ``with`` and ``async with`` both work, and ``.sync()``
gives a blocking wrapper typed as such.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Self, cast

import websockets
from websockets.exceptions import ConnectionClosed  # websockets.X is a lazy import per use

from openenv.client.blocking import BlockingConnection
from openenv.client.connections import (
    MAX_REDIRECTS,
    AsyncConnection,
    ProxiedConnection,
    Unresponsive,
    proxied,
    redirect,
)
from openenv.client.display import PLAYGROUND_HEIGHT, Shown, iframe, watch_url
from openenv.client.mcp import ToolsMixin
from openenv.client.modes import Modes, dual
from openenv.client.recorder import Recorder
from openenv.core.errors import (
    WIRE_CODES,
    CallTimeout,
    ClientError,
    ConnectFailed,
    ConnectionLost,
    ProtocolMismatch,
    SessionLost,
    server_error,
)
from openenv.core.registry import package_of
from openenv.core.serialization import (
    _step_result_cls,
    dump_json,
    model_from_wire,
    step_result_from_wire,
)
from openenv.core.types import Action, ActT, Observation, ObsT, State, StateT, StepResult
from openenv.core.view_wire import Drawing, drawing_from_wire

if TYPE_CHECKING:
    from openenv.client.sync import SyncEnvClient  # sync.py imports this module
    from openenv.launch.bootstrap import Bootstrap

TOKEN_ENV_VAR = "OPENENV_API_TOKEN"


def ws_url(base_url: str) -> str:
    """``http(s)://host/prefix`` → ``ws(s)://host/prefix/ws``."""
    url = base_url.rstrip("/")
    if url.startswith("https://"):
        url = "wss://" + url[len("https://") :]
    elif url.startswith("http://"):
        url = "ws://" + url[len("http://") :]
    elif not url.startswith(("ws://", "wss://")):
        url = "ws://" + url
    return url if url.endswith("/ws") else url + "/ws"


KEYS = ("id", "watch")  # of a session answer


class EnvClient(ToolsMixin, Generic[ActT, ObsT, StateT]):
    """One session (one environment instance) on a server, over ``/ws``.

    ``base_url`` is the server's HTTP address. ``api_token`` (or ``$OPENENV_API_TOKEN``) is sent
    as a bearer token. ``connect_timeout_s`` bounds the handshake, ``message_timeout_s`` each
    call; a call that times out raises :class:`ClientError` with code ``TIMEOUT`` and its late
    answer is recognised by ``request_id`` and discarded, never returned to a later call.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_token: str | None = None,
        connect_timeout_s: float = 10.0,
        message_timeout_s: float = 60.0,
        headers: dict[str, str] | None = None,
        max_message_size: int = 64 * 1024 * 1024,
        provider: Any = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = api_token if api_token is not None else os.environ.get(TOKEN_ENV_VAR)
        self._connect_timeout = connect_timeout_s
        self._message_timeout = message_timeout_s
        self._headers = dict(headers or {})
        self._max_size = max_message_size
        self._ws: Any = None
        self._ids = itertools.count(1)
        self._lock = asyncio.Lock()
        self._correlate = False
        self._blocking = False  # sync mode, not proxied: blocking I/O in the caller's thread
        self._modes = Modes(not proxied(ws_url(self.base_url)), self._turn_sync)
        self._provider = provider  # an openenv.runtime Provider this client stops on close
        self._recorder: Recorder | None = None

    def _turn_sync(self, direct: bool) -> None:
        self._blocking = direct

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's own public coroutine methods answer plain code too (rule: modes)."""
        super().__init_subclass__(**kwargs)
        for name, value in list(cls.__dict__.items()):
            if not name.startswith("_") and asyncio.iscoroutinefunction(value):
                setattr(cls, name, dual(value, direct=False))

    # -- typing hooks (override only for unusual payloads) -------------------------------

    _openenv_models: tuple[type | None, type | None, type | None]  # set on each subclass
    _openenv_result_type: type[StepResult[Any]]

    @classmethod
    def _models(cls) -> tuple[Any, Any, Any]:
        found = cls.__dict__.get("_openenv_models")  # per class: parsing runs on every step
        if found is None:
            found = _find_models(cls)
            cls._openenv_models = found
            # pydantic caches StepResult[Obs] weakly: without this reference the class is
            # rebuilt after garbage collections in the middle of a run.
            cls._openenv_result_type = _step_result_cls(found[1] or Observation)
        return found

    def _step_payload(self, action: Any) -> dict[str, Any]:
        if isinstance(action, Action):
            return action.model_dump(mode="json", exclude_defaults=False)
        action_cls = self._models()[0]
        if action_cls is not None and isinstance(action, dict):
            return model_from_wire(action, action_cls).model_dump(mode="json")
        if isinstance(action, dict):
            return action
        raise TypeError(f"step() needs an Action or a dict, got {type(action).__name__}")

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[ObsT]:
        obs_cls = self._models()[1] or Observation
        return step_result_from_wire(payload, obs_cls)

    def _parse_state(self, payload: dict[str, Any]) -> StateT:
        state_cls: Any = self._models()[2] or State  # StateT's class, found at run time
        return state_cls.model_validate(payload)

    # -- connection -------------------------------------------------------------------------

    @dual
    async def connect(self) -> Self:
        """Open the session (the WebSocket); a no-op when it is open already. A connection the
        server closed (an ended session) is dropped first, so the call opens a new session."""
        if self._ws is not None and self._ws.closed:
            await self._drop()
        if self._ws is not None:
            return self
        url, headers = ws_url(self.base_url), dict(self._headers)
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        try:
            for _ in range(MAX_REDIRECTS + 1):  # the first try, then each redirect
                try:
                    self._ws = await self._open(url, headers)
                    break
                except websockets.InvalidStatus as exc:
                    url, headers = redirect(url, headers, exc)
            else:
                raise websockets.InvalidHandshake(f"more than {MAX_REDIRECTS} redirects")
        except (OSError, TimeoutError, websockets.InvalidHandshake) as exc:
            raise ConnectFailed(f"cannot connect to {url}: {exc}") from exc
        features = self._ws.headers.get("x-openenv-features", "")
        self._correlate = "request-id" in features.split(",")
        return self

    async def _open(self, url: str, headers: dict[str, str]) -> Any:
        """A connection to ``url``: see :mod:`openenv.client.connections` for which."""
        if self._blocking:  # .sync(): this thread does the I/O
            return BlockingConnection.open(
                url, headers=headers, max_size=self._max_size, timeout=self._connect_timeout
            )
        if not proxied(url):
            return await AsyncConnection.open(
                url, headers=headers, max_size=self._max_size, timeout=self._connect_timeout
            )
        return await ProxiedConnection.open(
            url, headers=headers, max_size=self._max_size, timeout=self._connect_timeout
        )

    async def _drop(self) -> None:
        ws, self._ws = self._ws, None
        with contextlib.suppress(OSError, ConnectionClosed):
            await ws.close()

    if TYPE_CHECKING:

        async def close(self) -> None:
            """Close the session, then stop the server this client started (if any)."""

    else:

        def close(self):
            """Close the session, then stop the server this client started (if any)."""
            result = self._modes.dispatch(self._close, True, ())
            if self._modes.mode == "sync" and not asyncio.iscoroutine(result):
                self._modes.stop()  # the private loop, if a call needed one
            return result

    def record(self, path: str | Path, *, append: bool = False) -> Recorder:
        """Write every step from now on to ``path`` in the playground's episode format
        (:mod:`openenv.client.recorder`) until the returned recorder (a context manager) or
        the client closes; a new call replaces the recorder. ``append`` adds to the file,
        numbering episodes on from its last."""
        if self._recorder is not None:
            self._recorder.close()
        package = package_of(type(self))  # a typed client's env package (by module path only)
        self._recorder = Recorder(path, append=append, env=package.name if package else None)
        return self._recorder

    async def _close(self) -> None:
        if self._recorder is not None:
            self._recorder.close()
            self._recorder = None
        ws, self._ws = self._ws, None
        provider, self._provider = self._provider, None
        try:
            if ws is not None:
                await ws.close(dump_json({"type": "close"}))
        finally:
            if provider is not None:
                if self._blocking:
                    provider.stop()
                else:
                    await asyncio.to_thread(provider.stop)

    async def __aenter__(self) -> Self:
        self._modes.claim("async")
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __enter__(self) -> Self:
        self._modes.claim("sync")
        cast(Any, self).connect()  # sync now: it returns once connected
        return self

    def __exit__(self, *exc: object) -> None:
        cast(Any, self).close()

    @classmethod
    def from_docker_image(cls, image: str, provider: Any = None, **kwargs: Any) -> Bootstrap[Self]:
        """Run ``image`` in Docker: ``await`` the result for a connected client, or ``.sync()``.

        The container is removed when the client closes. Keyword arguments: ``env_vars``,
        ``port``, ``container_port``, ``timeout_s``, else the client's. See
        :class:`openenv.runtime.docker_provider.DockerProvider`.
        """
        from openenv.launch.servers import from_docker_image  # the launch layer, at call time

        return from_docker_image(cls, image, provider, **kwargs)

    @classmethod
    def from_env(
        cls, repo_id: str, *, local: bool = False, token: str | None = None, **kwargs: Any
    ) -> Bootstrap[Self]:
        """Connect to the Hugging Face Space ``owner/name`` (``https://owner-name.hf.space``).

        ``await`` the result for a connected client, or call ``.sync()``. ``token`` (default
        ``$HF_TOKEN`` or the ``hf auth login`` token) is sent for private Spaces. ``local=True``
        runs the environment from the installed package in a child process instead.
        """
        from openenv.launch.servers import from_space  # the launch layer, at call time

        return from_space(cls, repo_id, local=local, token=token, **kwargs)

    def sync(self) -> SyncEnvClient[ActT, ObsT, StateT]:
        """A blocking wrapper with the same methods, usable as a context manager."""
        from openenv.client.sync import SyncEnvClient

        self._modes.claim("sync")
        return SyncEnvClient(self)

    # -- the API ----------------------------------------------------------------------------

    @dual
    async def reset(self, **kwargs: Any) -> StepResult[ObsT]:
        """Start an episode; ``seed``, ``episode_id`` and env options go in ``kwargs``.

        A reset on a connection the server has closed meanwhile (the session ended: idle,
        over its time limit, the server restarted) opens a new session and resets that one.
        """
        message = {"type": "reset", "data": kwargs}
        try:
            data = await self._call(message, "observation")
        except ConnectionLost:  # SessionLost included
            data = await self._call(message, "observation")  # on a new connection
        if self._recorder is not None:
            self._recorder.reset(kwargs)
        return self._parse_result(data)

    @dual
    async def step(self, action: ActT | dict[str, Any], **kwargs: Any) -> StepResult[ObsT]:
        """Take one step with ``action`` (a model, or a dict of its fields)."""
        payload = {**self._step_payload(action), **kwargs}
        data = await self._call({"type": "step", "data": payload}, "observation")
        if self._recorder is not None:
            self._recorder.step(payload, data)
        return self._parse_result(data)

    @dual
    async def state(self) -> StateT:
        """The episode's current state."""
        return self._parse_state(await self._call({"type": "state"}, "state"))

    @dual
    async def drawing(self) -> Drawing:
        """What the environment draws now, as its playground shows it: ``(view, legal actions,
        sliders)``, a :class:`~openenv.core.views.Frame` (which a notebook shows), ``Board``,
        ``Text`` or ``Svg`` and the labelled buttons. Servers built with this framework answer
        it (:mod:`openenv.core.view_wire`); others refuse it (``UNKNOWN_TYPE``). ``ValueError``
        when what came back is malformed."""
        return drawing_from_wire(await self._call({"type": "view"}, "view"))

    @dual
    async def show(self) -> Shown:
        """The environment's picture now, as its playground draws it; a notebook displays it
        (a frame, a board, an SVG or text). Servers built with this framework answer it."""
        return Shown((await self.drawing())[0])

    @dual
    async def session(self) -> dict[str, str]:
        """This client's session on the server: ``{"id": its handle, "watch": its read-only
        watch reference}`` (servers built with this framework answer it). The handle attaches
        to the session (``/ws?session_id=``); keep it to yourself."""
        data = await self._call({"type": "session"}, "session")
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in KEYS):
            raise ValueError("the server's session answer is malformed")
        return {k: data[k] for k in KEYS}

    @dual
    async def playground(self, height: int = PLAYGROUND_HEIGHT) -> Any:
        """The live playground in a notebook: an IFrame of the server's playground following
        this very session as it steps (its picture, counters and reward chart), so a person
        watches the agent's steps appear. Opens the session first if needed."""
        watch = (await self.session())["watch"]
        return iframe(watch_url(self.base_url, watch), height)

    mcp_request = dual(ToolsMixin.mcp_request)
    list_tools = dual(ToolsMixin.list_tools)
    call_tool = dual(ToolsMixin.call_tool)

    async def _call(self, message: dict[str, Any], expect: str) -> Any:
        async with self._lock:
            if self._ws is not None and self._ws.closed and message["type"] != "reset":
                await self._drop()  # the server closed it between calls
                raise SessionLost(f"the server closed this session; {_LOST}")
            await self.connect()
            request_id = f"r{next(self._ids)}" if self._correlate else None
            if request_id is not None:
                message = {**message, "request_id": request_id}
            try:
                reply = await self._ws.request(
                    dump_json(message), request_id, self._message_timeout
                )
            except TimeoutError:
                raise CallTimeout(
                    f"no answer to {message['type']!r} within {self._message_timeout}s"
                ) from None
            except Unresponsive as exc:
                ws, self._ws = self._ws, None
                ws.abort()
                raise ConnectionLost(str(exc)) from None
            except ConnectionClosed as exc:
                self._ws = None
                raise _closed_error(exc) from exc
        if reply.get("type") == "error":
            err = reply.get("data") or {}
            text = str(err.get("message", "unknown error"))
            if err.get("closed") is True:  # the server's notice that it ends the session
                async with self._lock:
                    await self._drop()
                raise SessionLost(f"{text}; {_LOST}")
            raise server_error(err.get("code"), text)
        if reply.get("type") != expect:
            raise ProtocolMismatch(f"expected a {expect!r} message, got {reply.get('type')!r}")
        return reply.get("data") or {}


_LOST = "its episode is lost: reset() starts a new one on a new session"


def _find_models(cls: type) -> tuple[type | None, type | None, type | None]:
    """The (action, observation, state) classes ``cls`` subscripts ``EnvClient`` with."""
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            origin = typing.get_origin(base)
            if isinstance(origin, type) and issubclass(origin, EnvClient):
                args = list(typing.get_args(base)) + [None] * 3
                action, observation, state = (a if isinstance(a, type) else None for a in args[:3])
                return action, observation, state
    return None, None, None


def _closed_error(exc: ConnectionClosed) -> ClientError:
    """A closed connection as a ClientError; our servers put the wire code in the reason (a
    full server, a missing token), otherwise the session is simply lost."""
    reason = exc.rcvd.reason if exc.rcvd is not None else ""
    message = f"connection closed by the server: {exc}"
    return server_error(reason, message) if reason in WIRE_CODES else ConnectionLost(message)
