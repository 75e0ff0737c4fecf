"""The CodeAct transforms: reward shaping and safety applied to each observation after the
tests have scored it (``openenv.core.transforms``; the base class records the change they make
as the reward component ``transform:code_act_shaping``).

- :class:`CodeQualityTransform`: +0.1 for a cell of at most 100 characters, -0.2 for a cell
  that is not valid Python; what it did goes to ``metadata["quality"]``.
- :class:`CodeSafetyTransform`: a cell that imports ``os``, ``subprocess``, ``shutil``,
  ``socket`` or ``ctypes``, or calls ``eval``, ``exec``, ``open``, ``compile`` or
  ``__import__`` (found in its syntax tree, not by text) earns -1.0 whatever else it did; the
  reason goes to ``metadata["safety_violation"]``. It runs last, so its penalty is final.

Both read the cell from ``metadata["last_code"]`` (where the reference puts it too).
"""

from __future__ import annotations

import ast
from typing import Any

from openenv.core.transforms import Compose, Transform

DANGEROUS_MODULES = frozenset({"os", "subprocess", "shutil", "socket", "ctypes"})
DANGEROUS_CALLS = frozenset({"eval", "exec", "open", "compile", "__import__"})


def _code(observation: Any) -> str | None:
    code = (observation.metadata or {}).get("last_code")
    return code if isinstance(code, str) else None


def violation(code: str) -> str | None:
    """What makes ``code`` unsafe (``import os``, ``eval``), or None. Unparsable: None."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            if name.split(".")[0] in DANGEROUS_MODULES:
                return f"import {name.split('.')[0]}"
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if called in DANGEROUS_CALLS:
                return f"{called}()"
    return None


class CodeSafetyTransform(Transform):
    """Unsafe code earns ``penalty`` (module doc)."""

    def __init__(self, penalty: float = -1.0) -> None:
        self.penalty = penalty

    def __call__(self, observation: Any) -> Any:
        code = _code(observation)
        found = violation(code) if code else None
        if found is not None:
            observation.reward = self.penalty
            observation.metadata = {**observation.metadata, "safety_violation": found}
        return observation


class CodeQualityTransform(Transform):
    """A bonus for concise cells, a penalty for invalid syntax (module doc)."""

    def __init__(
        self, concise_bonus: float = 0.1, max_length: int = 100, syntax_penalty: float = -0.2
    ) -> None:
        self.concise_bonus = concise_bonus
        self.max_length = max_length
        self.syntax_penalty = syntax_penalty

    def __call__(self, observation: Any) -> Any:
        code = _code(observation)
        if not code or not code.strip():
            return observation
        quality: dict[str, float] = {}
        if len(code.strip()) <= self.max_length:
            quality["concise"] = self.concise_bonus
        try:
            ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            quality["syntax_error"] = self.syntax_penalty
        observation.reward = float(observation.reward or 0.0) + sum(quality.values())
        observation.metadata = {**observation.metadata, "quality": quality}
        return observation


class CodeActShaping(Compose):
    """Quality, then safety: the transforms this environment applies by default."""

    def __init__(self) -> None:
        super().__init__(CodeQualityTransform(), CodeSafetyTransform())


def create_safe_coding_transform() -> Transform:
    """The default transform (the reference's factory name)."""
    return CodeActShaping()
