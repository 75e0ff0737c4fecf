"""Containers that compose rubrics: Sequential, Gate, WeightedSum, RubricList, RubricDict.

Containers evaluate children one after another; when a child is async the container returns
an awaitable and evaluates the rest asynchronously, so sync and async rubrics mix freely.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from openenv.core.rubrics.base import Rubric


def _run_all(rubrics: list[Rubric], action: Any, observation: Any, combine: Any) -> Any:
    """Evaluate rubrics in order and ``combine(scores)``, going async only if a child is."""
    scores: list[float] = []
    for i, rubric in enumerate(rubrics):
        result = rubric(action, observation)
        if inspect.isawaitable(result):
            return _run_rest_async(rubrics[i + 1 :], action, observation, scores, result, combine)
        scores.append(result)
        if combine.stop_early(scores):
            break
    return combine(scores)


async def _run_rest_async(rest, action, observation, scores, pending, combine) -> float:
    scores.append(await pending)
    for rubric in rest:
        if combine.stop_early(scores):
            break
        result = rubric(action, observation)
        scores.append(await result if inspect.isawaitable(result) else result)
    return combine(scores)


class _Combine:
    def stop_early(self, scores: list[float]) -> bool:
        return False


class Sequential(Rubric):
    """Run children in order; the first that scores 0 stops the chain and the result is 0.

    Otherwise the result is the last child's score (syntax check → tests → style, say).
    """

    def __init__(self, *rubrics: Rubric) -> None:
        super().__init__()
        for i, rubric in enumerate(rubrics):
            setattr(self, f"rubric_{i}", rubric)

    def forward(self, action: Any, observation: Any) -> Any:
        class Chain(_Combine):
            def stop_early(self, scores: list[float]) -> bool:
                return bool(scores) and scores[-1] == 0.0

            def __call__(self, scores: list[float]) -> float:
                return 0.0 if not scores or scores[-1] == 0.0 else scores[-1]

        return _run_all(list(self.children()), action, observation, Chain())

    def __len__(self) -> int:
        return len(self._children)

    def __getitem__(self, index: int) -> Rubric:
        return list(self.children())[index]


class Gate(Rubric):
    """The child's score if it reaches ``threshold``, else 0 (a hard constraint)."""

    def __init__(self, rubric: Rubric, threshold: float = 1.0) -> None:
        super().__init__()
        self.rubric = rubric
        self.threshold = threshold

    def forward(self, action: Any, observation: Any) -> Any:
        threshold = self.threshold

        class Pass(_Combine):
            def __call__(self, scores: list[float]) -> float:
                return scores[0] if scores[0] >= threshold else 0.0

        return _run_all([self.rubric], action, observation, Pass())

    def config(self) -> dict[str, Any]:
        return {"threshold": self.threshold}


class WeightedSum(Rubric):
    """Σ weightᵢ · scoreᵢ. Children are named: pass a dict, or a list (names from classes).

    Unlike the reference, weights need not sum to 1 (reward shaping uses +1 food, -1 death,
    -0.01 per step); pass ``normalized=True`` to require that they do.
    """

    _weights: dict[str, float]

    def __init__(
        self,
        rubrics: Mapping[str, Rubric] | Iterable[Rubric],
        weights: Mapping[str, float] | Iterable[float] | None = None,
        *,
        normalized: bool = False,
    ) -> None:
        super().__init__()
        named = _named(rubrics)
        weight_list = _weights(named, weights)
        if normalized and abs(sum(weight_list) - 1.0) > 1e-6:
            raise ValueError(f"normalized weights must sum to 1.0, got {sum(weight_list)}")
        for name, rubric in named:
            setattr(self, name, rubric)
        names = [n for n, _ in named]
        object.__setattr__(self, "_weights", dict(zip(names, weight_list, strict=True)))

    @property
    def weights(self) -> dict[str, float]:
        return dict(self._weights)

    def forward(self, action: Any, observation: Any) -> Any:
        weights = [self._weights[name] for name in self._children]

        class Total(_Combine):
            def __call__(self, scores: list[float]) -> float:
                return sum(w * s for w, s in zip(weights, scores, strict=True))

        return _run_all(list(self.children()), action, observation, Total())

    def config(self) -> dict[str, Any]:
        return {"_weights": dict(self._weights)}


def _named(rubrics: Mapping[str, Rubric] | Iterable[Rubric]) -> list[tuple[str, Rubric]]:
    if isinstance(rubrics, Mapping):
        return list(rubrics.items())
    named: list[tuple[str, Rubric]] = []
    for rubric in rubrics:
        base, name, n = rubric.name, rubric.name, 1
        while name in dict(named):
            n += 1
            name = f"{base}_{n}"
        named.append((name, rubric))
    return named


def _weights(named: list[tuple[str, Rubric]], weights: Any) -> list[float]:
    if weights is None:
        return [1.0] * len(named)
    if isinstance(weights, Mapping):
        missing = [n for n, _ in named if n not in weights]
        if missing:
            raise ValueError(f"no weight for rubric(s) {missing}")
        return [float(weights[n]) for n, _ in named]
    values = [float(w) for w in weights]
    if len(values) != len(named):
        raise ValueError(f"{len(named)} rubrics but {len(values)} weights")
    return values


class RubricList(Rubric):
    """A list of rubrics registered as children (like ``nn.ModuleList``); no aggregation."""

    def __init__(self, rubrics: Iterable[Rubric] = ()) -> None:
        super().__init__()
        for rubric in rubrics:
            self.append(rubric)

    def append(self, rubric: Rubric) -> None:
        setattr(self, str(len(self._children)), rubric)

    def extend(self, rubrics: Iterable[Rubric]) -> None:
        for rubric in rubrics:
            self.append(rubric)

    def forward(self, action: Any, observation: Any) -> float:
        raise NotImplementedError("RubricList does not aggregate: use it inside a parent rubric")

    def __len__(self) -> int:
        return len(self._children)

    def __getitem__(self, index: int) -> Rubric:
        return list(self.children())[index]

    def __iter__(self) -> Iterator[Rubric]:
        return iter(list(self.children()))


class RubricDict(Rubric):
    """A mapping of names to rubrics registered as children (like ``nn.ModuleDict``)."""

    def __init__(self, rubrics: Mapping[str, Rubric] | None = None) -> None:
        super().__init__()
        self.update(rubrics or {})

    def update(self, rubrics: Mapping[str, Rubric]) -> None:
        for key, rubric in rubrics.items():
            self[key] = rubric

    def forward(self, action: Any, observation: Any) -> float:
        raise NotImplementedError("RubricDict does not aggregate: use it inside a parent rubric")

    def __setitem__(self, key: str, rubric: Rubric) -> None:
        setattr(self, key, rubric)

    def __getitem__(self, key: str) -> Rubric:
        return self._children[key]

    def __contains__(self, key: object) -> bool:
        return key in self._children

    def __len__(self) -> int:
        return len(self._children)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._children))

    def keys(self) -> list[str]:
        return list(self._children)

    def values(self) -> list[Rubric]:
        return list(self._children.values())

    def items(self) -> list[tuple[str, Rubric]]:
        return list(self._children.items())
