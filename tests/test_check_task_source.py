"""check_task_source (openenv/testing.py) passes an environment that keeps the task-source
contract and names each promise a broken one does not keep: the row played, the seed's pick,
the form's picker and its defaults, the options a row replaces, bad rows and shipped rows."""

import json
import re
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import Field

from openenv.core import Action, Environment, InvalidAction, Observation, State
from openenv.core.task_source import TASK_DIR_ENV, TASK_HUB_ENV, PickedTask, TaskColumns, TaskRows
from openenv.testing import EnvCheckError, check_task_source, played_in_state

QUESTIONS = ("two", "three", "five", "seven", "eleven")
COLUMNS = TaskColumns({"question": ("question",)})


class QuizAction(Action):
    answer: str = ""


class QuizObservation(Observation):
    question: str = ""


class QuizState(State):
    question: str = ""
    task_source: str | None = None
    task_index: int | None = None
    row: int | None = None  # the row played, also when task_index is not said


def quiz(package: Path, fault: str = "") -> tuple[type[Environment], TaskRows]:
    """A quiz whose reset takes a question from a row, with one ``fault`` of the contract."""
    task_rows = TaskRows(package, COLUMNS)
    source_option, index_option = task_rows.options()

    class Quiz(Environment[QuizAction, QuizObservation, QuizState]):
        resets = 0

        def __init__(self) -> None:
            self._state = QuizState()

        def reset(
            self, seed=None, episode_id=None, question=None, mode="easy", strict=None,
            task_source=None, task_index=None,
        ):  # fmt: skip
            Quiz.resets += 1
            if fault == "unseeded" and task_source is not None and task_index is None:
                task_index = Quiz.resets % len(QUESTIONS)  # not the seed's pick
            replaced = {"question": question is not None, "mode": mode != "easy"}
            replaced["strict"] = strict is not None if fault == "form refused" else bool(strict)
            if fault == "default refused":
                replaced["mode"] = mode
            if fault == "question kept":
                del replaced["question"]
            picked = task_rows.pick(task_source, task_index, self.rng, "question", **replaced)
            text = read(picked) if picked is not None else question or "one"
            self._state = QuizState(question=text, row=picked.index if picked else None)
            if picked is not None and fault != "row unsaid":
                self._state.task_source, self._state.task_index = picked.source, picked.index
            return QuizObservation(question=text)

        reset.__annotations__ = {
            "question": Annotated[str | None, Field(max_length=40)],
            "mode": Annotated[str, Field(pattern="^(easy|hard)$")],
            "strict": bool | None,
            "task_source": source_option,
            "task_index": index_option,
        }

        def step(self, action: QuizAction) -> QuizObservation:
            return QuizObservation(question=self._state.question, done=True, reward=0.0)

        @property
        def state(self) -> QuizState:
            return self._state

    return Quiz, task_rows


def read(picked: PickedTask) -> str:
    """The quiz's reading of a row: a question of at most 8 letters."""
    question = picked.task["question"]
    if not isinstance(question, str) or len(question) > 8:
        raise picked.error("a question is a word of at most 8 letters")
    return question


BAD_ROWS = [
    ({"question": "seventeen"}, r"at most 8 letters"),
    ({"question": ["two"]}, r"a word of"),
    ({"prompt": "two"}, r"has no column for 'question'"),
]


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(TASK_DIR_ENV, raising=False)
    monkeypatch.delenv(TASK_HUB_ENV, raising=False)
    (tmp_path / "quiz" / "tasks").mkdir(parents=True)
    lines = [json.dumps({"question": q}) + "\n" for q in QUESTIONS]
    (tmp_path / "quiz" / "tasks" / "primes.jsonl").write_text("".join(lines))
    return tmp_path / "quiz"


def check(package: Path, fault: str = "", **options: Any) -> None:
    env_cls, task_rows = quiz(package, fault)
    settings: dict[str, Any] = {
        "rows": 5,
        "gives": "question",
        "replaced": {"question": "two", "mode": "hard"},
        "read": read,
        "bad_rows": BAD_ROWS,
    }
    check_task_source(env_cls, task_rows, **{**settings, **options})


def test_an_environment_that_keeps_the_contract_passes(package: Path) -> None:
    check(package)
    check(package, replaced=[("question", ""), ("question", "two")], source="primes.jsonl")
    check(package, played=lambda env, obs: ("primes.jsonl", QUESTIONS.index(obs.question)))
    check(package, "row unsaid", played=lambda env, obs: ("primes.jsonl", env.state.row))
    check(package, played=played_in_state(index="row"))


@pytest.mark.parametrize(
    ("fault", "options", "says"),
    [
        ("", {"rows": 4}, "primes.jsonl has 5 rows, not the 4 expected"),
        ("", {"source": "other.jsonl"}, "'other.jsonl' is not a shipped task file"),
        ("row unsaid", {}, r"task_index=0\) played \(None, None\)"),
        ("unseeded", {}, r"reset\(seed=4, task_source='primes.jsonl'\) twice played"),
        ("default refused", {}, r"task_index=0\) is refused: a task_source gives .* mode out"),
        ("form refused", {}, r"strict=False, .*\) \(the form's defaults with a task_source: "),
        ("question kept", {}, r"question='two'\) must raise InvalidAction \('a task_source"),
        ("", {"gives": "task"}, r"expected it to say 'a task_source gives the task: leave q"),
        ("", {"bad_rows": [({"question": "nine"}, "")]}, r"the row \{'question': 'nine'\} must"),
        ("", {"bad_rows": [({"question": "seventeen"}, "short")]}, r"expected it named"),
    ],
)
def test_each_broken_promise_is_named(package: Path, fault: str, options: dict, says: str) -> None:
    with pytest.raises(EnvCheckError, match=says):
        check(package, fault, **options)


def test_a_shipped_row_the_reset_refuses_and_an_unnamed_error_are_caught(package: Path) -> None:
    def strict(picked: PickedTask) -> str:
        if picked.task["question"] == "eleven":
            raise picked.error("too long")
        return read(picked)

    with pytest.raises(EnvCheckError, match=r"the shipped row 4 of primes.jsonl is refused: row"):
        check(package, read=strict)

    def unnamed(picked: PickedTask) -> str:
        if len(picked.task["question"]) > 8:
            raise InvalidAction("too long")
        return read(picked)

    with pytest.raises(EnvCheckError, match=re.escape("expected it named (row 0 of bad.jsonl)")):
        check(package, read=unnamed, bad_rows=BAD_ROWS[:1])


def test_the_operator_directory_is_set_only_while_bad_rows_are_read(package: Path) -> None:
    import os

    check(package)
    assert TASK_DIR_ENV not in os.environ
