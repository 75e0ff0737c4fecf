"""The Julia tasks this package ships: six small functions of our own, each with its tests.

A test is a name and a Julia expression that must evaluate to ``true``; the runner (see
:mod:`runner`) calls each one after loading the agent's code, so one failing test never hides
the others. ``solution`` is a reference solution (the validator's oracle uses it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JuliaTask:
    id: str
    prompt: str
    signature: str
    tests: tuple[tuple[str, str], ...]
    solution: str


TASKS: tuple[JuliaTask, ...] = (
    JuliaTask(
        "fizzbuzz",
        'Return "Fizz" for multiples of 3, "Buzz" for multiples of 5, "FizzBuzz" for both, and '
        "the number as a string otherwise.",
        "fizzbuzz(n::Integer)::String",
        (
            ("three", 'fizzbuzz(3) == "Fizz"'),
            ("five", 'fizzbuzz(10) == "Buzz"'),
            ("fifteen", 'fizzbuzz(45) == "FizzBuzz"'),
            ("other", 'fizzbuzz(7) == "7"'),
        ),
        'fizzbuzz(n::Integer) = n % 15 == 0 ? "FizzBuzz" : n % 3 == 0 ? "Fizz" :\n'
        '    n % 5 == 0 ? "Buzz" : string(n)\n',
    ),
    JuliaTask(
        "palindrome",
        "Tell whether a string reads the same backwards, ignoring case and anything that is not "
        "a letter or a digit.",
        "is_palindrome(s::AbstractString)::Bool",
        (
            ("plain", 'is_palindrome("level")'),
            ("sentence", 'is_palindrome("A man, a plan, a canal: Panama")'),
            ("not", '!is_palindrome("julia")'),
            ("empty", 'is_palindrome("")'),
        ),
        "function is_palindrome(s::AbstractString)\n"
        "    t = lowercase(filter(c -> isletter(c) || isdigit(c), s))\n"
        "    return t == reverse(t)\n"
        "end\n",
    ),
    JuliaTask(
        "running-sum",
        "Return the running sums of a vector: element i is the sum of the first i elements.",
        "running_sum(v::AbstractVector{<:Real})::Vector",
        (
            ("small", "running_sum([1, 2, 3]) == [1, 3, 6]"),
            ("negative", "running_sum([5, -5, 2]) == [5, 0, 2]"),
            ("empty", "isempty(running_sum(Int[]))"),
            ("floats", "running_sum([0.5, 0.25]) == [0.5, 0.75]"),
        ),
        "running_sum(v::AbstractVector{<:Real}) = cumsum(v)\n",
    ),
    JuliaTask(
        "gcd-euclid",
        "Compute the greatest common divisor of two non-negative integers with Euclid's "
        "algorithm (without calling gcd).",
        "euclid(a::Integer, b::Integer)::Integer",
        (
            ("coprime", "euclid(17, 5) == 1"),
            ("common", "euclid(84, 36) == 12"),
            ("zero", "euclid(0, 9) == 9"),
            ("same", "euclid(21, 21) == 21"),
        ),
        "function euclid(a::Integer, b::Integer)\n"
        "    while b != 0\n"
        "        a, b = b, a % b\n"
        "    end\n"
        "    return a\n"
        "end\n",
    ),
    JuliaTask(
        "count-vowels",
        "Count the vowels (a, e, i, o, u, either case) in a string.",
        "count_vowels(s::AbstractString)::Int",
        (
            ("word", 'count_vowels("julia") == 3'),
            ("upper", 'count_vowels("OpenEnv") == 3'),
            ("none", 'count_vowels("rhythm") == 0'),
            ("empty", 'count_vowels("") == 0'),
        ),
        'count_vowels(s::AbstractString) = count(c -> lowercase(c) in "aeiou", s)\n',
    ),
    JuliaTask(
        "matrix-trace",
        "Return the sum of the diagonal of a square matrix; throw an ArgumentError when the "
        "matrix is not square.",
        "trace_of(m::AbstractMatrix)",
        (
            ("identity", "trace_of([1 0; 0 1]) == 2"),
            ("three", "trace_of([1 2 3; 4 5 6; 7 8 9]) == 15"),
            ("not_square", "try trace_of([1 2 3; 4 5 6]); false catch e; e isa ArgumentError end"),
        ),
        "function trace_of(m::AbstractMatrix)\n"
        '    size(m, 1) == size(m, 2) || throw(ArgumentError("not square"))\n'
        "    return sum(m[i, i] for i in axes(m, 1))\n"
        "end\n",
    ),
)

BY_ID = {task.id: task for task in TASKS}
