"""Who grades the proof items of a rubric: the judge model, or a deterministic stand-in.

:class:`JudgeGrader` asks the server's judge (:func:`openenv.core.llm.llm_endpoint`, role
``judge``) to mark each item; when no judge is configured, or its reply is unusable, the items
stay ungraded and the observation says why (never a score made up here).
:class:`KeywordGrader` is the deterministic stand-in for tests and offline demos: an item's
points are given when the proof contains one phrase of each of its keyword groups. It checks
that named steps are present, not that the mathematics is right, and says so in its name and
its notes. ``QED_MATH_GRADER=keyword`` selects it on a server; the default is ``judge``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from openenv.core.llm import NOT_CONFIGURED, LLMEndpoint, LLMUnavailable, llm_endpoint
from qed_math_env.server.problems import Item, Problem

MAX_FEEDBACK_CHARS = 2000
JUDGE_MAX_TOKENS = 1500
GRADER_SETTING = "QED_MATH_GRADER"


class GradingError(RuntimeError):
    """The proof could not be graded; the message says why (shown to the agent)."""


@dataclass(frozen=True)
class ItemGrade:
    points: int
    note: str


@dataclass(frozen=True)
class ProofGrade:
    items: dict[int, ItemGrade]  # index into problem.items -> grade
    feedback: str


class KeywordGrader:
    """A deterministic stand-in for the judge (tests, offline demos): keywords, not mathematics."""

    name = "KeywordGrader (deterministic stand-in, not a judge)"

    def grade(self, problem: Problem, proof: str, indices: list[int]) -> ProofGrade:
        text = _normalise(proof)
        grades = {}
        for i in indices:
            item = problem.items[i]
            missing = [g for g in item.keywords if not any(_normalise(k) in text for k in g)]
            ok = not missing
            grades[i] = ItemGrade(
                item.points if ok else 0,
                "the step is stated" if ok else f"no sign of: {missing[0][0]}",
            )
        earned = sum(g.points for g in grades.values())
        feedback = f"{earned} of {sum(problem.items[i].points for i in indices)} proof points "
        feedback += "(keyword check: the steps named in the rubric are looked for, not verified)"
        return ProofGrade(grades, feedback)


class JudgeGrader:
    """The server's judge model marks each proof item (OPENENV_LLM_JUDGE_* / OPENENV_LLM_*)."""

    name = "judge model"

    def __init__(self, endpoint: LLMEndpoint | None = None) -> None:
        self._endpoint = endpoint

    def grade(self, problem: Problem, proof: str, indices: list[int]) -> ProofGrade:
        endpoint = self._endpoint or llm_endpoint("judge")
        if endpoint is None:
            raise GradingError(f"the proof was not graded: {NOT_CONFIGURED}")
        try:
            reply = endpoint.complete(
                judge_prompt(problem, proof, indices),
                system=JUDGE_SYSTEM,
                max_tokens=JUDGE_MAX_TOKENS,
            )
        except LLMUnavailable as exc:
            raise GradingError(f"the proof was not graded: the judge failed: {exc}") from exc
        return parse_judge_reply(reply, problem, indices)


JUDGE_SYSTEM = (
    "You grade mathematical proofs strictly, like an olympiad marker. Award an item's points "
    "only for what the proof actually establishes; a claim without justification earns nothing."
)


def judge_prompt(problem: Problem, proof: str, indices: list[int]) -> str:
    """What the judge reads: problem, reference solution, the items to mark, the proof."""
    items = "\n".join(
        f'<item id="{n}" max="{problem.items[i].points}">{problem.items[i].title}: '
        f"{problem.items[i].desc}</item>"
        for n, i in enumerate(indices, 1)
    )
    return (
        f"<problem>\n{problem.statement}\n</problem>\n"
        f"<reference_solution>\n{problem.solution}\n</reference_solution>\n"
        f"<rubric>\n{items}\n</rubric>\n"
        f"<proof>\n{proof}\n</proof>\n\n"
        "Mark every rubric item. Answer with one line per item, "
        '<points item="N">P</points> with P a whole number from 0 to that item\'s max, then '
        "<feedback>two or three sentences for the student</feedback>."
    )


_POINTS = re.compile(r'<points\s+item="(\d+)"\s*>\s*(\d+)\s*</points>')
_FEEDBACK = re.compile(r"<feedback>(.*?)</feedback>", re.S)


def parse_judge_reply(reply: str, problem: Problem, indices: list[int]) -> ProofGrade:
    """The judge's marks; GradingError when an item is missing or out of range."""
    marks = {int(n): int(p) for n, p in _POINTS.findall(reply)}
    grades = {}
    for n, i in enumerate(indices, 1):
        item: Item = problem.items[i]
        if n not in marks:
            raise GradingError(f"the proof was not graded: the judge's reply did not mark item {n}")
        if not 0 <= marks[n] <= item.points:
            raise GradingError(
                f"the proof was not graded: the judge gave item {n} {marks[n]} of {item.points}"
            )
        grades[i] = ItemGrade(marks[n], "marked by the judge")
    found = _FEEDBACK.search(reply)
    feedback = (found.group(1) if found else "").strip()[:MAX_FEEDBACK_CHARS]
    return ProofGrade(grades, feedback)


def server_grader() -> KeywordGrader | JudgeGrader:
    """The grader this server's setting names (``QED_MATH_GRADER``: judge or keyword)."""
    choice = os.environ.get(GRADER_SETTING, "judge").strip().lower() or "judge"
    if choice == "keyword":
        return KeywordGrader()
    if choice != "judge":
        raise ValueError(f"${GRADER_SETTING} must be 'judge' or 'keyword', got {choice!r}")
    return JudgeGrader()


def _normalise(text: str) -> str:
    """Lower case without any white space, so "n = 1" and "n=1" match."""
    return "".join(text.lower().replace("\\geq", ">=").split())
