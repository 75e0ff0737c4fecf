"""FinQA: answer a financial question about one company from its 10-K-style tables, with tools.

Tools (the documented names and arguments, plus a calculator):
``get_descriptions(company_name)`` lists the company's tables;
``get_table_info(company_name, table_name)`` gives a table's description, columns, types and
the distinct values of its text columns; ``sql_query(company_name, table_name, query)`` runs a
read-only SQLite query against the table (called ``data``, or by its own name; a filter such as
``WHERE`` is required and ``SELECT *`` is refused; at most 50 rows, 1 s);
``calculator(expression)`` evaluates arithmetic (no ``eval``); ``submit_answer(answer)`` ends
the episode.

Reset options: ``question_id`` (else the seed picks a question) and ``max_steps``; or
``task_source`` (a task file such as the shipped ``starter.jsonl``, or a dataset) and
``task_index`` (its row; none: the seed picks one), whose row names a ``question_id`` of the
data set, looked up as ``question_id`` is (the data set's answer scores it). Reward: 0.0
per tool call; on ``submit_answer``, 1.0 when the answer is within 1 % (or 0.01) of the
reference (:mod:`finqa_env.server.rewards`), else 0.0, in ``metadata["reward_components"]``
as ``correct``. Running out of steps ends the episode with 0.0. Data: the synthetic set we ship,
or the published benchmark (``FINQA_DATA_PATH`` / ``FINQA_DATASET``, see
:mod:`finqa_env.server.dataset`). A bad tool, argument or query is an observation with
``error``; the episode goes on.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from finqa_env.models import FinQAObservation, FinQAState
from finqa_env.server import rewards
from finqa_env.server.calculator import CalculatorError, calculate
from finqa_env.server.dataset import FinqaData, Question, load_configured
from finqa_env.server.stage import Stage, stage_svg
from finqa_env.server.tables import CompanyTables, QueryError
from openenv.core import ActionChoice, Environment, Svg
from openenv.core.errors import InvalidAction
from openenv.core.mcp import CallToolAction, CallToolObservation, MCPEnvironment, tool
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.core.types import Action, Observation

MaxSteps = Annotated[int, Field(ge=1, le=200, description="Tool calls before the episode is cut")]
QuestionId = Annotated[
    str | None, Field(default=None, max_length=64, description="Which question (else by seed)")
]
CompanyName = Annotated[str, Field(max_length=128, description="The company (see the question)")]
TableName = Annotated[str, Field(max_length=256, description="A table name (get_descriptions)")]
MAX_ANSWER = 200
# A row of a task file: a question of the data set, by its id (looked up as ``question_id``
# is). Nothing of a row is run or scored: the data set's question and answer are.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"question_id": ("question_id", "id")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=64)]
)
MAX_UNIQUE = 30

_DATA: FinqaData | None = None
_DATA_LOCK = threading.Lock()


def data() -> FinqaData:
    """The configured data set, loaded once per process."""
    global _DATA
    with _DATA_LOCK:
        if _DATA is None:
            _DATA = load_configured()
        return _DATA


def row_question(picked: PickedTask, dataset: FinqaData) -> Question:
    """The question of ``dataset`` a row names; a TaskSourceError names the row and what does
    not fit."""
    question_id = picked.valid(_ROW_ID, picked.task["question_id"])
    for question in dataset.questions:
        if question.id == question_id:
            return question
    ids = ", ".join(q.id for q in dataset.questions[:20])
    raise picked.error(f"no question {question_id!r} in {dataset.source}; ids: {ids}")


def _default_max_steps() -> int:
    return max(1, min(200, int(os.environ.get("FINQA_MAX_STEPS", "50"))))


class FinQAEnvironment(MCPEnvironment, Environment[CallToolAction, FinQAObservation, FinQAState]):
    """See the module docstring."""

    how_to_play = (
        "Answer the question from the company's tables: list them, look at one, query it with "
        "SQL, compute with the calculator, then submit_answer (Tools tab). Within 1 % scores 1."
    )

    def __init__(self, dataset: FinqaData | None = None) -> None:
        """``dataset``: the questions and tables to play (default: the configured set)."""
        super().__init__()
        self._data = dataset or data()
        self._question = self._data.questions[0]
        self._tables = CompanyTables(self._data.companies[self._question.company])
        self._stage = Stage()
        self._seen: list[str] = []
        self._submitted: str | None = None
        self._correct = 0.0
        self._max_steps = _default_max_steps()
        self._picked: PickedTask | None = None
        self.rubric = WeightedSum({"correct": FnRubric(self._score, name="correct")}, [1.0])

    # -- the episode ------------------------------------------------------------------------

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        question_id: QuestionId = None,
        max_steps: MaxSteps | None = None,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> FinQAObservation:
        super().reset(seed=seed, episode_id=episode_id)
        picked = TASK_ROWS.pick(
            task_source, task_index, self.rng, "question", question_id=question_id
        )
        self._question = row_question(picked, self._data) if picked else self._pick(question_id)
        self._picked = picked
        self._tables.close()
        self._tables = CompanyTables(self._data.companies[self._question.company])
        self._stage = Stage(table=next(iter(self._tables.tables), None))
        self._seen, self._submitted, self._correct = [], None, 0.0
        self._max_steps = max_steps or _default_max_steps()
        return self._observe(FinQAObservation(reward=0.0, metadata={"status": "ready"}))

    def step(self, action: Action) -> Observation:  # type: ignore[override]
        obs = super().step(action)
        if isinstance(obs, CallToolObservation) and not isinstance(obs, FinQAObservation):
            obs = FinQAObservation(**obs.model_dump())
        if self._submitted is None and self._state.step_count >= self._max_steps:
            obs.done = True
            obs.metadata["status"] = f"out of steps ({self._max_steps}) without an answer"
        return self._observe(obs) if isinstance(obs, FinQAObservation) else obs

    def score_tool_call(
        self, action: CallToolAction, observation: CallToolObservation
    ) -> CallToolObservation:
        if action.tool_name == "submit_answer" and observation.error is None:
            self._correct = rewards.score(self._submitted or "", self._question.answer)
            observation.done = True
        return observation

    @property
    def state(self) -> FinQAState:  # type: ignore[override]
        correct = None if self._submitted is None else self._correct >= 1.0
        return FinQAState(
            episode_id=self._state.episode_id,
            step_count=self._state.step_count,
            question_id=self._question.id,
            question=self._question.question,
            company=self._question.company,
            tables_seen=list(self._seen),
            submitted=self._submitted,
            correct=correct,
            data_source=self._data.source,
            task_source=self._picked.source if self._picked else None,
            task_index=self._picked.index if self._picked else None,
        )

    def close(self) -> None:
        self._tables.close()

    # -- tools ------------------------------------------------------------------------------

    @tool
    def get_descriptions(self, company_name: CompanyName) -> list[str]:
        """List the names of the company's tables.

        Args:
            company_name: The company the question is about.
        """
        return list(self._company(company_name).tables)

    @tool
    def get_table_info(self, company_name: CompanyName, table_name: TableName) -> dict[str, Any]:
        """Describe one table: description, columns with types, distinct values of text columns.

        Args:
            company_name: The company the question is about.
            table_name: One of the names get_descriptions returns.
        """
        table = self._company(company_name).table(table_name)
        self._look_at(table.name)
        types: dict[str, str] = {}
        unique: dict[str, list[Any]] = {}
        for i, column in enumerate(table.columns):
            values = [row[i] for row in table.rows]
            numeric = all(isinstance(v, int | float) or v is None for v in values)
            types[column] = "number" if numeric else "text"
            if not numeric:
                unique[column] = list(dict.fromkeys(values))[:MAX_UNIQUE]
        return {
            "table_name": table.name,
            "description": table.description,
            "column_dtypes": types,
            "unique_vals_per_col": unique,
            "row_count": len(table.rows),
            "sql_table": "data",
        }

    @tool
    def sql_query(
        self,
        company_name: CompanyName,
        table_name: TableName,
        query: Annotated[
            str, Field(max_length=2000, description="A read-only SELECT with a filter")
        ],
    ) -> dict[str, Any]:
        """Run a read-only SQL query on one table (FROM data). SELECT * is not allowed and a
        filter (WHERE, HAVING, LIKE, IN, ...) is required; at most 50 rows come back.

        Args:
            company_name: The company the question is about.
            table_name: The table to query (get_descriptions).
            query: The SQL, e.g. SELECT total FROM data WHERE year = '2023'.
        """
        tables = self._company(company_name)
        name = tables.table(table_name).name
        self._look_at(name)
        try:
            result = tables.query(name, query)
        except QueryError as exc:
            raise InvalidAction(str(exc)) from None
        self._stage.query, self._stage.result = query, result
        return result

    @tool
    def calculator(
        self,
        expression: Annotated[str, Field(max_length=300, description="Arithmetic to evaluate")],
    ) -> float:
        """Evaluate arithmetic: numbers, + - * / // % ** (or ^), parentheses, and abs, round,
        min, max, sqrt, log, exp.

        Args:
            expression: For example (2388 - 2104) / 2104 * 100.
        """
        try:
            value = calculate(expression)
        except CalculatorError as exc:
            raise InvalidAction(str(exc)) from None
        self._stage.calculations = [*self._stage.calculations[-3:], (expression, value)]
        return value

    @tool
    def submit_answer(
        self,
        answer: Annotated[str, Field(max_length=MAX_ANSWER, description="The final answer")],
    ) -> str:
        """Submit the final answer (a number; \\boxed{...}, % and $ are understood). Ends the
        episode.

        Args:
            answer: The final answer, e.g. 32.83%.
        """
        if self._submitted is not None:
            raise InvalidAction(f"an answer was already submitted: {self._submitted}")
        self._submitted = answer.strip()
        return f"Answer submitted: {self._submitted}"

    # -- playground -------------------------------------------------------------------------

    def render(self) -> Svg:
        q = self._question
        return Svg(stage_svg(self._data, q, self._stage, self._submitted, self._verdict()))

    def legal_actions(self) -> list[ActionChoice]:
        """Read-only helpers as buttons; queries, calculations and the answer: Tools tab."""
        company = self._question.company
        choices = [ActionChoice("List tables", _call("get_descriptions", company_name=company))]
        for name in list(self._tables.tables)[:4]:
            choices.append(
                ActionChoice(
                    f"Describe {_short(name)}",
                    _call("get_table_info", company_name=company, table_name=name),
                    description=name,
                )
            )
        return choices

    # -- helpers ----------------------------------------------------------------------------

    def _pick(self, question_id: str | None) -> Question:
        questions = self._data.questions
        if question_id is None:
            return questions[self.rng.randrange(len(questions))]
        for question in questions:
            if question.id == question_id:
                return question
        raise InvalidAction(
            f"no question {question_id!r}; ids: {', '.join(q.id for q in questions[:20])}"
        )

    def _company(self, name: str) -> CompanyTables:
        if name.strip().lower() != self._question.company:
            raise InvalidAction(
                f"this question is about {self._question.company!r}; "
                f"use company_name={self._question.company!r}"
            )
        return self._tables

    def _look_at(self, table: str) -> None:
        if table not in self._seen:
            self._seen.append(table)
        if table != self._stage.table:
            self._stage.table, self._stage.query, self._stage.result = table, None, None

    def _score(self, action: Any, observation: Any) -> float:
        return self._correct

    def _verdict(self) -> str | None:
        if self._submitted is None:
            return None
        word = "correct" if self._correct >= 1.0 else "not within 1 %"
        return f"{word}; reference {self._question.answer}"

    def _observe(self, obs: FinQAObservation) -> FinQAObservation:
        q = self._question
        obs.question, obs.company, obs.step_count = q.question, q.company, self._state.step_count
        obs.submitted = self._submitted
        obs.metadata.update({"question": q.question, "company": q.company, "question_id": q.id})
        if obs.done:
            obs.metadata["ground_truth"] = q.answer
        return obs


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": name, "arguments": arguments}


def _short(name: str) -> str:
    core = name.split("_")[-1].removesuffix("TableTextBlock").removeprefix("ScheduleOf")
    return core[:28]
