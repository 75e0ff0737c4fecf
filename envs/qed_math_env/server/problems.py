"""The problem set this package ships: twelve problems of our own, each with a 7-point rubric.

Three kinds: ``answer`` (the final answer is the whole grade, checked by math-verify),
``proof`` (every point is the proof grader's) and ``proof_with_answer`` (math-verify checks the
final answer's points, the grader the rest: the process is graded, not only the result).

An item's ``keywords`` serve only :class:`~qed_math_env.server.graders.KeywordGrader`, the
deterministic stand-in for a judge: each group lists alternatives, and the item's points are
given when every group has one of its alternatives in the proof. They are never shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SOURCE = "qed-playground"
ANSWER = "answer"  # an item checked by math-verify against Problem.answer


@dataclass(frozen=True)
class Item:
    """One rubric item: ``points`` for what ``desc`` says; ``check`` is ANSWER or "proof"."""

    title: str
    points: int
    desc: str
    check: str = "proof"
    keywords: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Problem:
    id: str
    kind: str  # answer | proof | proof_with_answer
    statement: str
    solution: str
    items: tuple[Item, ...]
    answer: str | None = None  # LaTeX of the final answer (kinds with one)
    source: str = field(default=SOURCE)

    def guidelines(self) -> str:
        """The rubric as the agent reads it: items, points and what earns them."""
        lines = [f"- {i.title} ({i.points} pt): {i.desc}" for i in self.items]
        return "\n".join(lines)


def answer_problem(
    id_: str, statement: str, answer: str, solution: str, source: str = SOURCE
) -> Problem:
    """A problem graded by its final answer alone (7 points), as a task file's rows are."""
    item = Item("Final answer", 7, "The boxed final answer equals the reference answer", ANSWER)
    return Problem(id_, "answer", statement, solution, (item,), answer, source)


_answer_only = answer_problem


def _final(points: int) -> Item:
    return Item("Final answer", points, "The boxed final answer is right", ANSWER)


PROBLEMS: tuple[Problem, ...] = (
    _answer_only(
        "divisor-sum-360",
        "Find the sum of all positive divisors of 360.",
        "1170",
        "360 = 2^3 * 3^2 * 5, so the sum is (1+2+4+8)(1+3+9)(1+5) = 15 * 13 * 6 = \\boxed{1170}.",
    ),
    _answer_only(
        "three-or-five",
        "How many integers n with 1 <= n <= 100 are divisible by 3 or by 5, but not by 15?",
        "41",
        "33 multiples of 3 and 20 of 5, 6 of both: 33 + 20 - 6 = 47 are divisible by 3 or 5; "
        "removing the 6 multiples of 15 leaves \\boxed{41}.",
    ),
    _answer_only(
        "two-power-mod-seven",
        "Find the remainder when 2^100 is divided by 7.",
        "2",
        "2^3 = 8 = 1 (mod 7) and 100 = 3 * 33 + 1, so 2^100 = 2 (mod 7): \\boxed{2}.",
    ),
    _answer_only(
        "telescoping-sum",
        "Evaluate the infinite sum of 1/(k(k+1)) over k = 1, 2, 3, ...",
        "1",
        "1/(k(k+1)) = 1/k - 1/(k+1); the partial sums are 1 - 1/(n+1), which tend to \\boxed{1}.",
    ),
    _answer_only(
        "sine-75",
        "Give the exact value of sin 75 degrees.",
        "\\frac{\\sqrt{6}+\\sqrt{2}}{4}",
        "sin 75 = sin(45 + 30) = sin45 cos30 + cos45 sin30 = \\boxed{\\frac{\\sqrt6+\\sqrt2}{4}}.",
    ),
    _answer_only(
        "quadratic-roots",
        "Find all real x with x^2 - 5x + 6 = 0. Give the answer as a set.",
        "\\{2, 3\\}",
        "x^2 - 5x + 6 = (x - 2)(x - 3), so x is 2 or 3: \\boxed{\\{2, 3\\}}.",
    ),
    Problem(
        "divides-n-squared-plus-two",
        "proof_with_answer",
        "Find all positive integers n such that n + 2 divides n^2 + 2, and prove that there are "
        "no others.",
        "n^2 + 2 = (n + 2)(n - 2) + 6, so n + 2 divides n^2 + 2 exactly when n + 2 divides 6. "
        "As n + 2 >= 3, n + 2 is 3 or 6, so n = 1 or n = 4; both work (3 | 3, 6 | 18): "
        "\\boxed{\\{1, 4\\}}.",
        (
            Item(
                "Division with remainder",
                2,
                "Writes n^2 + 2 = (n + 2)(n - 2) + 6",
                keywords=(
                    ("(n+2)(n-2)+6", "(n - 2)(n + 2) + 6", "(n-2)(n+2)+6", "(n + 2)(n - 2) + 6"),
                ),
            ),
            Item(
                "Reduction",
                2,
                "Concludes that n + 2 must divide 6",
                keywords=(("divides 6", "| 6", "|6", "divisor of 6"),),
            ),
            Item(
                "Cases checked",
                1,
                "Uses n + 2 >= 3 and checks the candidates",
                keywords=(("n = 1", "n=1"), ("n = 4", "n=4")),
            ),
            _final(2),
        ),
        "\\{1, 4\\}",
    ),
    Problem(
        "x-plus-inverse",
        "proof_with_answer",
        "Find the minimum of x + 1/x over real x > 0, and prove that it is the minimum.",
        "x + 1/x - 2 = (sqrt(x) - 1/sqrt(x))^2 >= 0, with equality at x = 1, so the minimum is "
        "\\boxed{2}.",
        (
            Item(
                "Inequality",
                3,
                "Proves x + 1/x >= 2 (AM-GM or a square)",
                keywords=(("am-gm", "am–gm", "^2 >= 0", "^2 \\geq 0", "^2 ≥ 0"),),
            ),
            Item(
                "Equality case",
                2,
                "Shows the bound is reached, at x = 1",
                keywords=(("x = 1", "x=1"), ("equality",)),
            ),
            _final(2),
        ),
        "2",
    ),
    Problem(
        "trailing-zeros-100",
        "proof_with_answer",
        "How many zeros does 100! end with? Justify your count.",
        "Each trailing zero is a factor 10 = 2 * 5, and factors 2 outnumber factors 5. 100! has "
        "floor(100/5) + floor(100/25) = 20 + 4 factors 5, so it ends with \\boxed{24} zeros.",
        (
            Item(
                "Counting fives",
                3,
                "Counts the factors 5 with multiples of 5 and of 25",
                keywords=(("100/5", "multiples of 5"), ("100/25", "multiples of 25")),
            ),
            Item(
                "Twos are plentiful",
                2,
                "Explains why factors 2 do not limit the count",
                keywords=(("factors of 2", "factors 2", "more 2", "twos"),),
            ),
            _final(2),
        ),
        "24",
    ),
    Problem(
        "sqrt-two-irrational",
        "proof",
        "Prove that the square root of 2 is irrational.",
        "Suppose sqrt(2) = p/q in lowest terms. Then p^2 = 2q^2, so p is even, p = 2r; then "
        "q^2 = 2r^2, so q is even too: p/q was not in lowest terms, a contradiction.",
        (
            Item(
                "Setup",
                2,
                "Assumes sqrt(2) = p/q with p, q coprime (lowest terms)",
                keywords=(("lowest terms", "coprime", "gcd(p, q) = 1", "gcd(p,q)=1"),),
            ),
            Item(
                "p is even",
                2,
                "Derives p^2 = 2q^2 and that p is even",
                keywords=(("p^2 = 2q^2", "p^2=2q^2"), ("p is even",)),
            ),
            Item(
                "Contradiction",
                3,
                "Shows q is even too, contradicting lowest terms",
                keywords=(("q is even",), ("contradiction",)),
            ),
        ),
    ),
    Problem(
        "n-cubed-minus-n",
        "proof",
        "Prove that n^3 - n is divisible by 6 for every integer n.",
        "n^3 - n = (n - 1) n (n + 1) is a product of three consecutive integers: one of them is "
        "even and one is a multiple of 3, so 6 divides it.",
        (
            Item(
                "Factorisation",
                3,
                "Writes n^3 - n = (n - 1) n (n + 1)",
                keywords=(
                    ("(n-1)n(n+1)", "(n - 1)n(n + 1)", "(n - 1) n (n + 1)", "(n-1) n (n+1)"),
                ),
            ),
            Item(
                "Two and three",
                3,
                "Three consecutive integers include an even number and a multiple of 3",
                keywords=(
                    ("consecutive",),
                    ("even", "divisible by 2"),
                    ("multiple of 3", "divisible by 3"),
                ),
            ),
            Item(
                "Conclusion",
                1,
                "Concludes divisibility by 6 from 2 and 3 being coprime",
                keywords=(("divisible by 6", "6 divides"),),
            ),
        ),
    ),
    Problem(
        "infinitely-many-primes",
        "proof",
        "Prove that there are infinitely many prime numbers.",
        "Suppose p_1, ..., p_k were all the primes. N = p_1 p_2 ... p_k + 1 leaves remainder 1 "
        "when divided by each p_i, yet N > 1 has a prime factor: a prime not in the list.",
        (
            Item(
                "Assumption",
                2,
                "Supposes there are finitely many primes p_1, ..., p_k",
                keywords=(("finitely many", "finite list", "finite number"),),
            ),
            Item(
                "Euclid's number",
                3,
                "Considers N = p_1 ... p_k + 1",
                keywords=(("+ 1", "+1"), ("product",)),
            ),
            Item(
                "Contradiction",
                2,
                "N has a prime factor outside the list",
                keywords=(("prime factor", "prime divisor"), ("contradiction",)),
            ),
        ),
    ),
)

BY_ID = {p.id: p for p in PROBLEMS}
KINDS = ("answer", "proof", "proof_with_answer")
