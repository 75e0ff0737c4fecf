"""The shipped tasks: a question with an answer, or a function checked by hidden tests.

Each task is drawn from the episode's seed (``make_task(name, rng)``), so a seed replays the
same numbers. Value tasks compare the submitted answer with the expected one (numbers as
numbers, text without case or surrounding quotes). Function tasks ask for a function by name;
on submission the server calls it on hidden cases inside the session's sandbox and compares
what it returned with its own results, which never enter the sandbox.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

WORDS = ["river", "stone", "light", "garden", "window", "paper", "orange", "silver", "cloud"]
WORDS += ["market", "bridge", "candle", "forest", "harbor", "lantern", "meadow", "rocket"]


@dataclass(frozen=True)
class Task:
    name: str
    prompt: str
    context: str | None = None
    expected: str | None = None  # value tasks
    function: str | None = None  # function tasks: the name the hidden tests call
    cases: list[list[Any]] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)


def word_count(rng: random.Random) -> Task:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1500, 2500)))
    sentences = [s.capitalize() + "." for s in re.findall(r"(?:\S+ ?){1,12}", text)]
    context = " ".join(sentences)
    word = rng.choice(WORDS)
    count = re.findall(r"[a-z]+", context.lower()).count(word)
    prompt = f"How many times does the word '{word}' appear in `context` (any case)?"
    return Task("word_count", prompt, context=context, expected=str(count))


def sum_primes(rng: random.Random) -> Task:
    n = rng.randint(10_000, 200_000)
    sieve = bytearray([1]) * n
    sieve[:2] = b"\x00\x00"
    for i in range(2, int(n**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytearray(len(range(i * i, n, i)))
    total = sum(i for i in range(n) if sieve[i])
    prompt = f"What is the sum of all prime numbers below {n}?"
    return Task("sum_primes", prompt, expected=str(total))


def _fizzbuzz(n: int) -> str:
    return "FizzBuzz" if n % 15 == 0 else "Fizz" if n % 3 == 0 else "Buzz" if n % 5 == 0 else str(n)


def fizzbuzz(rng: random.Random) -> Task:
    cases = [[n] for n in [1, 3, 5, 15, *rng.sample(range(2, 10_000), 12)]]
    prompt = (
        "Define fizzbuzz(n) returning 'Fizz' for multiples of 3, 'Buzz' for multiples of 5, "
        "'FizzBuzz' for multiples of both and str(n) otherwise; then submit with FINAL('done')."
    )
    outputs = [_fizzbuzz(n) for [n] in cases]
    return Task("fizzbuzz", prompt, function="fizzbuzz", cases=cases, outputs=outputs)


def _run_length(text: str) -> str:
    return "".join(f"{m.group(1)}{len(m.group(0))}" for m in re.finditer(r"(.)\1*", text))


def run_length(rng: random.Random) -> Task:
    cases = [[""], ["a"], ["aaabcc"]]
    for _ in range(9):
        cases.append(["".join(rng.choice("abc") * rng.randint(1, 5) for _ in range(6))])
    prompt = (
        "Define encode(s) returning the run-length encoding of s: each run of a character as "
        "the character then the run's length ('aaabcc' -> 'a3b1c2', '' -> ''); then submit "
        "with FINAL('done')."
    )
    outputs = [_run_length(s) for [s] in cases]
    return Task("run_length", prompt, function="encode", cases=cases, outputs=outputs)


BUILDERS: dict[str, Callable[[random.Random], Task]] = {
    "word_count": word_count,
    "sum_primes": sum_primes,
    "fizzbuzz": fizzbuzz,
    "run_length": run_length,
}


def answers_match(submitted: str, expected: str) -> bool:
    """Numbers compare as numbers; text ignores case, surrounding space and quotes."""
    a, b = _normal(submitted), _normal(expected)
    try:
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))
    except ValueError:
        return a == b


def _normal(text: str) -> str:
    return str(text).strip().strip("'\"").strip().lower()


def outputs_match(values: list[Any], expected: list[Any]) -> int:
    """How many hidden cases the function got right (same type and value)."""
    right = 0
    for got, want in zip(values, expected, strict=False):
        if isinstance(got, dict) and "value" in got and "type" not in got:
            right += type(got["value"]) is type(want) and got["value"] == want
    return right
