"""The coding tasks: small functions to write, each checked on inputs drawn per episode.

A task names the function, says what it must do, and holds our reference solution (trusted
code, run in the server) and an input generator. The check calls the agent's function in the
agent's interpreter on seeded random inputs and the server compares each ``repr`` with the
reference's: printing the right answers would need the answers, that is, solving the task.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Inputs = Callable[[random.Random], list[tuple[Any, ...]]]


@dataclass(frozen=True)
class Task:
    """One function to write."""

    task_id: str
    prompt: str
    function: str
    reference: Callable[..., Any]
    inputs: Inputs
    solution: str  # a correct cell (what the validator's oracle sends)


def _fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def _primes_below(n: int) -> list[int]:
    return [k for k in range(2, n) if all(k % d for d in range(2, math.isqrt(k) + 1))]


def _is_palindrome(s: str) -> bool:
    letters = [c.lower() for c in s if c.isalnum()]
    return letters == letters[::-1]


def _word_counts(text: str) -> dict[str, int]:
    return dict(Counter(re.findall(r"[a-z']+", text.lower())))


def _flatten(xs: list) -> list:
    out: list = []
    for x in xs:
        out.extend(_flatten(x) if isinstance(x, list) else [x])
    return out


def _fizzbuzz(n: int) -> list[str]:
    return ["Fizz" * (i % 3 == 0) + "Buzz" * (i % 5 == 0) or str(i) for i in range(1, n + 1)]


def _run_lengths(s: str) -> list[tuple[str, int]]:
    return [(m.group(0)[0], len(m.group(0))) for m in re.finditer(r"(.)\1*", s)]


WORDS = ("the", "cat", "sat", "on", "mat", "The", "Mat", "dog's", "ran")


def _nested(rng: random.Random, depth: int = 0) -> list:
    return [_nested(rng, depth + 1) if depth < 2 and rng.random() < 0.3 else rng.randint(0, 9)
            for _ in range(rng.randint(0, 4))]  # fmt: skip


def _phrase(rng: random.Random) -> str:
    word = "".join(rng.choice("abc") for _ in range(rng.randint(1, 4)))
    return rng.choice([word + word[::-1], word + "x" + word[::-1].upper(), word + "yz"])


TASKS = (
    Task("fib", "Define fib(n): the n-th Fibonacci number, fib(0) = 0 and fib(1) = 1.",
         "fib", _fib, lambda r: [(r.randint(0, 60),) for _ in range(5)],
         "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n"
         "        a, b = b, a + b\n    return a"),
    Task("primes_below", "Define primes_below(n): the list of primes smaller than n, ascending.",
         "primes_below", _primes_below, lambda r: [(r.randint(0, 200),) for _ in range(5)],
         "def primes_below(n):\n    return [k for k in range(2, n)"
         " if all(k % d for d in range(2, int(k ** 0.5) + 1))]"),
    Task("is_palindrome", "Define is_palindrome(s): True when s reads the same backwards, "
         "ignoring case and anything but letters and digits.",
         "is_palindrome", _is_palindrome, lambda r: [(_phrase(r),) for _ in range(6)],
         "def is_palindrome(s):\n    t = [c.lower() for c in s if c.isalnum()]\n"
         "    return t == t[::-1]"),
    Task("word_counts", "Define word_counts(text): a dict of each lower-cased word (letters "
         "and apostrophes) to how often it occurs.",
         "word_counts", _word_counts,
         lambda r: [(" ".join(r.choice(WORDS) for _ in range(r.randint(0, 9))),) for _ in range(5)],
         "import re, collections\ndef word_counts(text):\n"
         "    return dict(collections.Counter(re.findall(r\"[a-z']+\", text.lower())))"),
    Task("flatten", "Define flatten(xs): the items of a list of nested lists, in order, as "
         "one flat list.",
         "flatten", _flatten, lambda r: [(_nested(r),) for _ in range(5)],
         "def flatten(xs):\n    out = []\n    for x in xs:\n"
         "        out.extend(flatten(x) if isinstance(x, list) else [x])\n    return out"),
    Task("fizzbuzz", "Define fizzbuzz(n): the strings for 1..n, 'Fizz' for multiples of 3, "
         "'Buzz' of 5, 'FizzBuzz' of both, else the number.",
         "fizzbuzz", _fizzbuzz, lambda r: [(r.randint(0, 40),) for _ in range(4)],
         "def fizzbuzz(n):\n    return ['Fizz' * (i % 3 == 0) + 'Buzz' * (i % 5 == 0) or str(i)"
         " for i in range(1, n + 1)]"),
    Task("run_lengths", "Define run_lengths(s): a list of (character, count) tuples, one per "
         "run of equal characters, e.g. 'aab' -> [('a', 2), ('b', 1)].",
         "run_lengths", _run_lengths,
         lambda r: [("".join(r.choice("ab ") for _ in range(r.randint(0, 12))),) for _ in range(5)],
         "import itertools\ndef run_lengths(s):\n"
         "    return [(k, len(list(g))) for k, g in itertools.groupby(s)]"),
    Task("gcd", "Define gcd(a, b): the greatest common divisor of two non-negative integers "
         "(gcd(0, 0) = 0).",
         "gcd", math.gcd, lambda r: [(r.randint(0, 10**6), r.randint(0, 10**4)) for _ in range(5)],
         "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a"),
)  # fmt: skip
TASK_IDS = tuple(t.task_id for t in TASKS)
