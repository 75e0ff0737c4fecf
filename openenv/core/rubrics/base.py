"""Rubric: a composable reward function computed inside the environment (server side only).

Modelled on ``torch.nn.Module``: assign rubrics as attributes and they become named children;
``named_rubrics()`` walks the tree; hooks run before and after ``forward``; ``state_dict()``
saves configuration. ``forward(action, observation) -> float`` may be sync or async; calling a
rubric returns a float, or an awaitable when ``forward`` is async.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

PreHook = Callable[["Rubric", Any, Any], None]
PostHook = Callable[["Rubric", Any, Any, float], None]


class HookHandle:
    """Returned by ``register_forward_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks: list[Any], hook: Any) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class Rubric:
    """Base class. Subclasses implement ``forward``; the last score is kept in ``last_score``."""

    # Set in __init__ with object.__setattr__ (children are registered by __setattr__).
    _children: dict[str, Rubric]
    _pre_hooks: list[PreHook]
    _post_hooks: list[PostHook]
    last_score: float | None

    def __init__(self) -> None:
        object.__setattr__(self, "_children", {})
        object.__setattr__(self, "_pre_hooks", [])
        object.__setattr__(self, "_post_hooks", [])
        object.__setattr__(self, "last_score", None)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_children" not in self.__dict__:
            raise AttributeError(f"call super().__init__() in {type(self).__name__}.__init__ first")
        if isinstance(value, Rubric):
            self._children[name] = value
        else:
            self._children.pop(name, None)
        object.__setattr__(self, name, value)

    # -- evaluation -------------------------------------------------------------------------

    def forward(self, action: Any, observation: Any) -> float | Awaitable[float]:
        raise NotImplementedError(f"{type(self).__name__} must implement forward()")

    def __call__(self, action: Any, observation: Any) -> Any:
        for hook in list(self._pre_hooks):
            hook(self, action, observation)
        result = self.forward(action, observation)
        if inspect.isawaitable(result):
            return self._finish_async(action, observation, result)
        return self._finish(action, observation, result)

    async def _finish_async(self, action: Any, observation: Any, pending: Any) -> float:
        return self._finish(action, observation, await pending)

    def _finish(self, action: Any, observation: Any, result: Any) -> float:
        score = float(result)
        object.__setattr__(self, "last_score", score)
        for hook in list(self._post_hooks):
            hook(self, action, observation, score)
        return score

    # -- hooks ------------------------------------------------------------------------------

    def register_forward_pre_hook(self, hook: PreHook) -> HookHandle:
        """``hook(rubric, action, observation)`` runs before every ``forward``."""
        self._pre_hooks.append(hook)
        return HookHandle(self._pre_hooks, hook)

    def register_forward_hook(self, hook: PostHook) -> HookHandle:
        """``hook(rubric, action, observation, score)`` runs after every ``forward``."""
        self._post_hooks.append(hook)
        return HookHandle(self._post_hooks, hook)

    # -- the tree ---------------------------------------------------------------------------

    def children(self) -> Iterator[Rubric]:
        yield from self._children.values()

    def named_children(self) -> Iterator[tuple[str, Rubric]]:
        yield from self._children.items()

    def rubrics(self) -> Iterator[Rubric]:
        for _, rubric in self.named_rubrics():
            yield rubric

    def named_rubrics(self, prefix: str = "") -> Iterator[tuple[str, Rubric]]:
        """Every descendant with its dotted path (``"gate.rubric"``), depth first."""
        for name, child in self._children.items():
            path = f"{prefix}.{name}" if prefix else name
            yield path, child
            yield from child.named_rubrics(path)

    def get_rubric(self, path: str) -> Rubric:
        node: Rubric = self
        for part in path.split("."):
            if part not in node._children:
                raise KeyError(f"no rubric {path!r}: {type(node).__name__} has no child {part!r}")
            node = node._children[part]
        return node

    def reset(self) -> None:
        """Clear per-episode state (recursively). Environments call it on every reset."""
        for child in self._children.values():
            child.reset()

    # -- configuration ----------------------------------------------------------------------

    def config(self) -> dict[str, Any]:
        """This rubric's own settings (override to save them); children are handled for you."""
        return {}

    def load_config(self, config: dict[str, Any]) -> None:
        for key, value in config.items():
            object.__setattr__(self, key, value)

    def state_dict(self) -> dict[str, Any]:
        """Configuration of this rubric and all descendants, keyed by dotted path."""
        state = {f"{self_key}": value for self_key, value in self.config().items()}
        for path, rubric in self.named_rubrics():
            for key, value in rubric.config().items():
                state[f"{path}.{key}"] = value
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        grouped: dict[str, dict[str, Any]] = {}
        for key, value in state.items():
            path, _, leaf = key.rpartition(".")
            grouped.setdefault(path, {})[leaf] = value
        for path, config in grouped.items():
            (self.get_rubric(path) if path else self).load_config(config)

    @property
    def name(self) -> str:
        """snake_case of the class name, used when a container has no explicit names."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={type(c).__name__}" for n, c in self._children.items())
        return f"{type(self).__name__}({inner})"


class FnRubric(Rubric):
    """A rubric from a plain function ``fn(action, observation) -> float``."""

    _fn: Callable[[Any, Any], Any]
    _name: str

    def __init__(self, fn: Callable[[Any, Any], Any], name: str | None = None) -> None:
        super().__init__()
        object.__setattr__(self, "_fn", fn)
        object.__setattr__(self, "_name", name or getattr(fn, "__name__", "rubric"))

    @property
    def name(self) -> str:
        return self._name

    def forward(self, action: Any, observation: Any) -> Any:
        return self._fn(action, observation)
