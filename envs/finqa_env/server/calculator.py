"""A safe calculator for the ``calculator`` tool: arithmetic parsed with :mod:`ast`, never
``eval``. Numbers, ``+ - * / // % **``, parentheses, unary signs and a few functions
(``abs round min max sqrt log exp``); bounded length, exponents and magnitudes."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

MAX_CHARS = 300
MAX_EXPONENT = 100
MAX_MAGNITUDE = 1e100
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")  # 1,375 -> 1375; max(1, 2) stays

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "sqrt": math.sqrt,
    "log": math.log,
    "exp": math.exp,
}


class CalculatorError(ValueError):
    """The expression is not plain arithmetic, or its value is out of bounds."""


def calculate(expression: str) -> float:
    """The value of ``expression``; :class:`CalculatorError` says what is wrong."""
    if len(expression) > MAX_CHARS:
        raise CalculatorError(f"an expression is at most {MAX_CHARS} characters")
    text = THOUSANDS.sub("", expression).replace("^", "**").strip()
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise CalculatorError(f"not an arithmetic expression: {expression!r}") from None
    try:
        value = _eval(tree.body)
    except CalculatorError:
        raise
    except (ZeroDivisionError, OverflowError, ValueError) as exc:
        raise CalculatorError(f"{type(exc).__name__}: {exc}") from None
    return _bounded(value)


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        if isinstance(node.value, bool):
            raise CalculatorError("booleans are not numbers here")
        return _bounded(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise CalculatorError(f"exponents are at most {MAX_EXPONENT}")
        return _bounded(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        func = _FUNCTIONS.get(node.func.id)
        if func is not None and 0 < len(node.args) <= 10:
            return _bounded(func(*(_eval(a) for a in node.args)))
    raise CalculatorError(f"not allowed in an expression: {_describe(node)}")


def _bounded(value: Any) -> float:
    if isinstance(value, complex) or not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise CalculatorError("the value is not a finite number below 1e100")
    return value


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"the name {node.id!r} (functions: {', '.join(_FUNCTIONS)})"
    return type(node).__name__
