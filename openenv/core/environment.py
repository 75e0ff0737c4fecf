"""The Environment contract.

(Longer than our other modules on purpose: the contract's text and the base class that enforces
it belong side by side, so that each rule and its guard are read together.)

Every environment served by this framework subclasses :class:`Environment`. The contract is
written once, here, and enforced by the base class so that every environment honours it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import json
import os
import random
import typing
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, cast

import numpy as np
from pydantic import TypeAdapter, ValidationError

from openenv.core.errors import InvalidAction, ResetNeeded
from openenv.core.rubrics import Rubric
from openenv.core.rubrics.components import attach, components_of, reconcile
from openenv.core.transforms import Transform
from openenv.core.types import Action, Observation, State
from openenv.core.views import ActionChoice, ActionSliders, View

ActT = TypeVar("ActT", bound=Action)
ObsT = TypeVar("ObsT", bound=Observation)
StateT = TypeVar("StateT", bound=State)

_RESERVED_RESET_PARAMS = ("self", "seed", "episode_id")

_F = TypeVar("_F", bound=Callable[..., Any])


def _cached(fn: _F) -> _F:
    """``functools.cache``, typed as ``fn`` itself (mypy finds ``type[X]`` arguments unhashable)."""
    return cast(_F, functools.cache(fn))


class Environment(Generic[ActT, ObsT, StateT]):
    """An episodic environment with a Gymnasium-style API.

    Subclass it with concrete types, ``class MyEnv(Environment[MyAction, MyObs, MyState])``,
    and implement ``reset``, ``step`` and ``state`` (or the ``*_async`` variants).

    ``reset(seed=None, episode_id=None, **options) -> Observation``
        Starts a new episode and returns its first observation. Before your ``reset`` runs, the
        base class seeds ``self.rng`` (``random.Random``) and ``self.np_random``
        (``numpy.random.Generator``) from ``seed``; draw all randomness from them and the same
        seed gives the same episode, step for step. Without a seed a fresh one is drawn and kept
        in ``self.seed`` so any episode can be replayed. ``episode_id`` names the episode
        (generate one when it is ``None``). Other keyword arguments are the environment's own
        reset options: declare them as named parameters; an option the environment does not
        declare is refused with :class:`~openenv.core.errors.InvalidAction`, never dropped.

    ``step(action) -> Observation``
        Applies one action. The observation carries ``reward`` (for this step) and ``done``.
        Stepping before the first ``reset`` or after an observation with ``done=True`` raises
        :class:`~openenv.core.errors.ResetNeeded` and changes nothing: the rule is enforced
        here, for every environment. An action the rules forbid (an illegal move) raises
        :class:`~openenv.core.errors.InvalidAction` with the reason, and must leave the
        environment unchanged, unless the environment documents a reset option that turns
        illegal moves into a penalty that ends the episode.

    ``state -> State``
        A property with ``episode_id``, ``step_count`` and any environment-specific fields.

    ``close()``
        Releases resources. Calling it twice is harmless (the base class makes it so).

    ``reset_async`` / ``step_async`` / ``state_async`` / ``close_async``
        Async variants. The defaults call the sync methods. Override them for environments that
        do I/O (a remote server behind the playground, a browser); servers call the async
        variant when it is overridden and otherwise run the sync method in a worker thread.

    Playground hooks (optional):

    ``render() -> View | None``
        What to draw now: a :class:`~openenv.core.views.Frame`, ``Board``, ``Text`` or ``Svg``.
    ``legal_actions() -> list[ActionChoice]``
        The actions allowed now, labelled, with optional keyboard keys; the playground shows one
        button per choice. Return ``[]`` when actions are not enumerable.
    ``action_sliders() -> ActionSliders | None``
        A continuous action as sliders (bounds and labels for now): the playground draws them
        with a Step button under the view, and autoplay draws random values in their ranges.
    ``render_fps``
        Frames per second an episode of this environment is watched at: the playground's
        autoplay speed and its GIF and MP4 exports (default 10; board games set 1 or 2, an
        instance may set its own, e.g. from the game it opened).
    ``how_to_play``
        One or two short sentences a visitor reads above the stage: the goal and how to act
        ("Click a piece, then a square", "Hold ← → to steer"). Every environment declares it.
    ``legend``
        What the picture's colours, glyphs or cells mean (``{"🔥": "burning", ...}``), shown
        beside the stage; empty when the picture speaks for itself.

    Rewards (optional): set ``self.rubric`` to a :class:`~openenv.core.rubrics.Rubric` and the
    base class scores every step with it: ``observation.reward`` becomes the rubric's score and
    ``observation.metadata`` gets ``reward_components`` / ``reward_weights`` (the reward always
    equals their weighted total). The rubric is reset on every ``reset``. ``self.transform``
    (a :class:`~openenv.core.transforms.Transform`) then post-processes the observation.

    ``SUPPORTS_CONCURRENT_SESSIONS``: set it to ``False`` when instances share global resources
    so a server may host only one session. ``CALL_TIMEOUT_S``: how long one sync call (a step,
    a reset) may run before the server ends its session (default: the server's, 60 s).
    ``STEP_KIND``: what a sync call mostly does, for the server's scheduler
    (:mod:`openenv.server.scheduling`): ``"io"`` waits (a sleep, a subprocess, an HTTP call),
    so it runs among many threads where waiting is cheap; ``"cpu"`` computes, so it stays in the
    small bounded pool; ``"auto"`` (the default) lets the server measure it.
    ``CLOSE_ENDS_CALLS``: set it to ``True`` when ``close()`` may run while a call is in flight
    and makes that call return soon (a long tool that waits on a cancellable job): a client
    that disconnects mid-call then closes its session at once, ending the call, instead of the
    server noticing only once the call has returned.
    """

    SUPPORTS_CONCURRENT_SESSIONS: ClassVar[bool] = True
    CALL_TIMEOUT_S: ClassVar[float | None] = None  # a server's limit per sync call (its default)
    STEP_KIND: ClassVar[str] = "auto"  # "io", "cpu" or "auto" (measured by the server)
    CLOSE_ENDS_CALLS: ClassVar[bool] = False  # close() may run mid-call and ends that call

    # The client this instance's server session counts against, set by the server when it
    # opens the session: a visitor's address, or None for loopback clients and holders of the
    # API token (openenv.server.clients.quota_owner). For an env that keeps per-client records
    # on something shared between sessions (a job queue, files).
    session_owner: str | None = None

    rubric: Rubric | None = None
    transform: Transform | None = None
    render_fps: float = 10.0
    how_to_play: ClassVar[str] = ""
    legend: ClassVar[dict[str, str]] = {}
    seed: int | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, guard in _GUARDS.items():
            # Resolved through the MRO, so a method from a mixin is guarded too.
            method = cls.__dict__.get(name, getattr(cls, name, None))
            if method is None or method is getattr(Environment, name):
                continue
            if not getattr(method, "_openenv_guarded", False):
                setattr(cls, name, guard(method))

    def __init__(self, transform: Transform | None = None, rubric: Rubric | None = None) -> None:
        """Optional ``transform`` and ``rubric`` (the constructor ``openenv`` 0.10 gives
        environments: ``super().__init__(rubric=MyRubric())`` works here too)."""
        if transform is not None:
            self.transform = transform
        if rubric is not None:
            self.rubric = rubric

    # -- the contract -------------------------------------------------------------------

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> ObsT:
        if overrides(type(self), "reset_async"):
            raise NotImplementedError(
                f"{type(self).__name__} is async-only: call `await env.reset_async(...)`"
            )
        raise NotImplementedError(f"{type(self).__name__} must implement reset()")

    def step(self, action: ActT) -> ObsT:
        if overrides(type(self), "step_async"):
            raise NotImplementedError(
                f"{type(self).__name__} is async-only: call `await env.step_async(action)`"
            )
        raise NotImplementedError(f"{type(self).__name__} must implement step()")

    @property
    def state(self) -> StateT:
        raise NotImplementedError(f"{type(self).__name__} must implement the state property")

    def close(self) -> None:
        """Release resources (idempotent)."""

    async def reset_async(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> ObsT:
        return self.reset(seed=seed, episode_id=episode_id, **kwargs)

    async def step_async(self, action: ActT) -> ObsT:
        return self.step(action)

    async def state_async(self) -> StateT:
        return self.state

    async def close_async(self) -> None:
        self.close()

    # -- playground hooks -----------------------------------------------------------------

    def render(self) -> View | None:
        return None

    def legal_actions(self) -> list[ActionChoice]:
        return []

    def action_sliders(self) -> ActionSliders | None:
        return None

    def action_draft(self) -> dict[str, str] | None:
        """What the action typed on the playground's stage starts with, by field name (a code
        template to edit, the last attempt to correct); None: empty boxes."""
        return None

    # -- openenv 0.10's explicit scoring calls --------------------------------------------
    # The base class scores every step itself; code written for 0.10 calls these by hand.
    # Each marks its step so that the base class does not do the same work a second time.

    def _reset_rubric(self) -> None:
        """Reset the rubric (the base class already does it on every ``reset``)."""
        if self.rubric is not None:
            self.rubric.reset()

    def _apply_rubric(self, action: Any, observation: Any) -> float:
        """Score ``observation`` with the rubric now and return the score (0.0 without one)."""
        if self.rubric is None:
            return 0.0
        result = self.rubric(action, observation)
        if inspect.isawaitable(result):
            _run_blocking(result)
        self._openenv_scored = True
        return float(self.rubric.last_score or 0.0)

    def _apply_transform(self, observation: Any) -> Any:
        """Run the transform on ``observation`` now (the base class then leaves it alone)."""
        self._openenv_transformed = True
        return _apply_transform(self, observation)

    # -- helpers for servers and tools --------------------------------------------------

    @property
    def rng(self) -> random.Random:
        """``random.Random`` seeded by the last ``reset`` (created on first use)."""
        rng = self.__dict__.get("_openenv_rng")
        if rng is None:
            rng = self._openenv_rng = random.Random(self._current_seed())
        return rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._openenv_rng = value

    @property
    def np_random(self) -> np.random.Generator:
        """``numpy.random.Generator`` seeded by the last ``reset`` (created on first use)."""
        gen = self.__dict__.get("_openenv_np_random")
        if gen is None:
            gen = self._openenv_np_random = np.random.default_rng(self._current_seed())
        return gen

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._openenv_np_random = value

    def _current_seed(self) -> int:
        if getattr(self, "seed", None) is None:
            self.seed = int.from_bytes(os.urandom(4), "little")
        return self.seed  # type: ignore[return-value]

    @property
    def episode_over(self) -> bool:
        """True when the last observation had ``done=True``."""
        return getattr(self, "_openenv_phase", "new") == "done"

    @property
    def episode_started(self) -> bool:
        return getattr(self, "_openenv_phase", "new") != "new"

    @classmethod
    def wire_types(cls) -> tuple[type[Action] | None, type[Observation] | None, type[State] | None]:
        """The concrete (Action, Observation, State) classes given as generic arguments."""
        for klass in cls.__mro__:
            for base in getattr(klass, "__orig_bases__", ()):
                origin = typing.get_origin(base)
                if isinstance(origin, type) and issubclass(origin, Environment):
                    args = [a if isinstance(a, type) else None for a in typing.get_args(base)]
                    return tuple([*args, None, None, None][:3])  # type: ignore[return-value]
        return None, None, None

    @classmethod
    def reset_options(cls) -> dict[str, inspect.Parameter]:
        """The environment's own reset options (named parameters besides seed/episode_id)."""
        return _reset_options(cls)

    @classmethod
    def accepts_any_reset_option(cls) -> bool:
        return _reset_accepts_var_kwargs(cls)

    @classmethod
    def reset_schema(cls) -> dict[str, Any]:
        """The JSON schema of the reset options (an object schema without ``seed`` and
        ``episode_id``; ``additionalProperties`` says whether undeclared options are taken):
        the form the playground draws, here or in front of this server over the network."""
        return _reset_schema(cls)


# -- enforcement of the contract ------------------------------------------------------------


@_cached
def overrides(cls: type, name: str) -> bool:
    """Whether ``cls`` implements ``name`` itself (``step_async``, ``reset``…) rather than
    inheriting the base class's: servers call an overridden async variant directly and run the
    sync method in a worker thread otherwise."""
    return getattr(cls, name) is not getattr(Environment, name)


def _reset_target(cls: type[Environment]) -> Any:
    impl = cls.reset if not overrides(cls, "reset_async") or overrides(cls, "reset") else None
    impl = impl or cls.reset_async
    return inspect.unwrap(impl)


@_cached
def _reset_options(cls: type[Environment]) -> dict[str, inspect.Parameter]:
    params = inspect.signature(_reset_target(cls)).parameters
    return {
        name: p
        for name, p in params.items()
        if name not in _RESERVED_RESET_PARAMS
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }


@_cached
def _reset_accepts_var_kwargs(cls: type[Environment]) -> bool:
    params = inspect.signature(_reset_target(cls)).parameters.values()
    return any(p.kind is p.VAR_KEYWORD for p in params)


@_cached
def _reset_schema(cls: type[Environment]) -> dict[str, Any]:
    try:
        hints = typing.get_type_hints(_reset_target(cls), include_extras=True)
    except Exception:  # unresolvable string annotations: the raw ones
        hints = {}
    properties: dict[str, Any] = {}
    defs: dict[str, Any] = {}
    required = []
    for name, param in _reset_options(cls).items():
        annotation = hints.get(name, param.annotation)
        try:
            prop = TypeAdapter(Any if annotation is param.empty else annotation).json_schema()
        except Exception:  # an annotation pydantic cannot describe: any JSON value
            prop = {}
        defs.update(prop.pop("$defs", {}))
        if param.default is param.empty:
            required.append(name)
        elif param.default is not None:
            prop["default"] = _jsonable(param.default)
        properties[name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if defs:
        schema["$defs"] = defs
    schema["additionalProperties"] = _reset_accepts_var_kwargs(cls)
    return schema


def _jsonable(value: Any) -> Any:
    """``value`` as JSON can carry it: itself, an enum's value, or its text."""
    try:
        json.dumps(value)
        return value
    except TypeError:
        return getattr(value, "value", str(value))


def _annotated(tp: Any) -> bool:
    """Whether ``tp`` holds an ``Annotated[...]`` (bounds such as ``Field(ge=1, le=32)``) or a
    ``Literal[...]`` (a drop-down's choices): what is checked before ``reset`` runs."""
    return typing.get_origin(tp) in (typing.Annotated, typing.Literal) or any(
        _annotated(arg) for arg in typing.get_args(tp) if not isinstance(arg, str | int | bool)
    )


@_cached
def _bounded_options(cls: type[Environment]) -> dict[str, Any]:
    """The reset options whose annotation carries bounds or choices, each with its pydantic
    validator: the bounds a form shows are the bounds every caller gets (the wire, Python, the
    page)."""
    try:
        hints = typing.get_type_hints(_reset_target(cls), include_extras=True)
    except Exception:  # annotations that do not resolve: nothing to check them by
        return {}
    return {
        name: (TypeAdapter(hints[name]), _description(hints[name]))
        for name in _reset_options(cls)
        if name in hints and _annotated(hints[name])
    }


def _description(tp: Any) -> str | None:
    """The ``Field(description=...)`` in an annotation, said after a refusal."""
    if typing.get_origin(tp) is typing.Annotated:
        for meta in typing.get_args(tp)[1:]:
            if getattr(meta, "description", None):
                return str(meta.description)
    return next(filter(None, map(_description, typing.get_args(tp))), None)


def _check_reset_options(env: Environment, kwargs: dict[str, Any]) -> None:
    cls = type(env)
    if not _reset_accepts_var_kwargs(cls):
        unknown = sorted(set(kwargs) - set(_reset_options(cls)))
        if unknown:
            accepted = ", ".join(["seed", "episode_id", *_reset_options(cls)])
            raise InvalidAction(
                f"{cls.__name__}.reset() does not accept {', '.join(map(repr, unknown))}; "
                f"accepted options: {accepted}"
            )
    if not kwargs:
        return
    for name, (adapter, description) in _bounded_options(cls).items():
        if name in kwargs:
            try:
                adapter.validate_python(kwargs[name])
            except ValidationError as exc:
                why = exc.errors()[0]["msg"].removeprefix("Input ")
                said = f" ({description})" if description else ""
                raise InvalidAction(f"{name}={kwargs[name]!r}: {why}{said}") from None


def _begin_reset(env: Environment, seed: int | None, kwargs: dict[str, Any]) -> None:
    _check_reset_options(env, kwargs)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidAction(f"seed must be an integer, got {seed!r}")
    used = seed if seed is not None else int.from_bytes(os.urandom(4), "little")
    env.seed = used
    # Built from the seed on first use: an env that draws no randomness pays nothing.
    env.__dict__.pop("_openenv_rng", None)
    env.__dict__.pop("_openenv_np_random", None)
    if env.rubric is not None:
        env.rubric.reset()


def _begin_step(env: Environment) -> None:
    phase = getattr(env, "_openenv_phase", "new")
    if phase == "new":
        raise ResetNeeded("step() was called before reset(): call reset() to start an episode")
    if phase == "done":
        raise ResetNeeded("the episode is over (done=True): call reset() to start a new one")


def _score(env: Environment, action: Any, obs: Any) -> Any:
    """Apply the env's rubric (sync context), then its transform."""
    scored, transformed = _scored_by_hand(env)
    if env.rubric is not None:
        if not scored:
            result = env.rubric(action, obs)
            if inspect.isawaitable(result):
                _run_blocking(result)
        _apply_rubric(env.rubric, obs)
    return obs if transformed else _apply_transform(env, obs)


async def _score_async(env: Environment, action: Any, obs: Any) -> Any:
    scored, transformed = _scored_by_hand(env)
    if env.rubric is not None:
        if not scored:
            result = env.rubric(action, obs)
            if inspect.isawaitable(result):
                await result
        _apply_rubric(env.rubric, obs)
    return obs if transformed else _apply_transform(env, obs)


def _scored_by_hand(env: Environment) -> tuple[bool, bool]:
    """Whether this step called ``_apply_rubric`` / ``_apply_transform`` itself (and forget)."""
    marks = env.__dict__
    return bool(marks.pop("_openenv_scored", False)), bool(marks.pop("_openenv_transformed", False))


def _apply_rubric(rubric: Rubric, obs: Any) -> None:
    scores, weights = components_of(rubric)
    obs.reward = rubric.last_score
    metadata = dict(obs.metadata)
    attach(metadata, scores, weights)
    obs.metadata = metadata


def _apply_transform(env: Environment, obs: Any) -> Any:
    if env.transform is None:
        return obs
    obs = env.transform(obs)
    reconcile(obs.metadata, obs.reward, f"transform:{env.transform.name}")
    return obs


def _run_blocking(awaitable: Any) -> Any:
    """Run an async rubric from sync code, even where an event loop is already running."""

    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, wait()).result()


def _finish(env: Environment, obs: Any) -> Any:
    env._openenv_phase = "done" if getattr(obs, "done", False) else "running"  # type: ignore[attr-defined]
    return obs


def _reentrant(env: Environment) -> bool:
    return getattr(env, "_openenv_depth", 0) > 0


def _enter(env: Environment, delta: int) -> None:
    env._openenv_depth = getattr(env, "_openenv_depth", 0) + delta  # type: ignore[attr-defined]


@functools.cache
def _parameters(method: Any) -> tuple[frozenset[str], bool]:
    """The keyword names ``method`` takes, and whether it takes ``**kwargs`` too."""
    params = inspect.signature(method).parameters.values()
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return frozenset(named), any(p.kind is p.VAR_KEYWORD for p in params)


def _accepted(method: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments ``method``'s signature accepts: ``def reset(self)`` gets no
    ``seed`` or ``episode_id`` (the base class has seeded ``self.rng`` from the seed already),
    as ``openenv`` 0.10 passes each method only what it declares."""
    named, takes_any = _parameters(method)
    if takes_any:
        return kwargs
    return {key: value for key, value in kwargs.items() if key in named}


def _guard_reset(method: Any) -> Any:
    @functools.wraps(method)
    def reset(self: Environment, seed: int | None = None, episode_id: str | None = None, **kw: Any):
        kwargs = _accepted(method, {"seed": seed, "episode_id": episode_id, **kw})
        if _reentrant(self):
            return method(self, **kwargs)
        _begin_reset(self, seed, kw)
        _enter(self, 1)
        try:
            return _finish(self, method(self, **kwargs))
        finally:
            _enter(self, -1)

    reset._openenv_guarded = True  # type: ignore[attr-defined]
    return reset


def _guard_reset_async(method: Any) -> Any:
    @functools.wraps(method)
    async def reset_async(
        self: Environment, seed: int | None = None, episode_id: str | None = None, **kw: Any
    ):
        kwargs = _accepted(method, {"seed": seed, "episode_id": episode_id, **kw})
        if _reentrant(self):
            return await method(self, **kwargs)
        _begin_reset(self, seed, kw)
        _enter(self, 1)
        try:
            return _finish(self, await method(self, **kwargs))
        finally:
            _enter(self, -1)

    reset_async._openenv_guarded = True  # type: ignore[attr-defined]
    return reset_async


def _guard_step(method: Any) -> Any:
    @functools.wraps(method)
    def step(self: Environment, action: Any, *args: Any, **kwargs: Any):
        kwargs = _accepted(method, kwargs)
        if _reentrant(self):
            return method(self, action, *args, **kwargs)
        _begin_step(self)
        _enter(self, 1)
        try:
            obs = _score(self, action, method(self, action, *args, **kwargs))
            return _finish(self, obs)
        finally:
            _enter(self, -1)

    step._openenv_guarded = True  # type: ignore[attr-defined]
    return step


def _guard_step_async(method: Any) -> Any:
    @functools.wraps(method)
    async def step_async(self: Environment, action: Any, *args: Any, **kwargs: Any):
        kwargs = _accepted(method, kwargs)
        if _reentrant(self):
            return await method(self, action, *args, **kwargs)
        _begin_step(self)
        _enter(self, 1)
        try:
            obs = await _score_async(self, action, await method(self, action, *args, **kwargs))
            return _finish(self, obs)
        finally:
            _enter(self, -1)

    step_async._openenv_guarded = True  # type: ignore[attr-defined]
    return step_async


def _guard_close(method: Any) -> Any:
    @functools.wraps(method)
    def close(self: Environment) -> None:
        if getattr(self, "_openenv_closed", False):
            return
        self._openenv_closed = True  # type: ignore[attr-defined]
        method(self)

    close._openenv_guarded = True  # type: ignore[attr-defined]
    return close


def _guard_close_async(method: Any) -> Any:
    @functools.wraps(method)
    async def close_async(self: Environment) -> None:
        if getattr(self, "_openenv_closed", False):
            return
        self._openenv_closed = True  # type: ignore[attr-defined]
        await method(self)

    close_async._openenv_guarded = True  # type: ignore[attr-defined]
    return close_async


_GUARDS = {
    "reset": _guard_reset,
    "reset_async": _guard_reset_async,
    "step": _guard_step,
    "step_async": _guard_step_async,
    "close": _guard_close,
    "close_async": _guard_close_async,
}
