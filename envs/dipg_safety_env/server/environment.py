"""DIPG safety: answer one clinical question from the given context, safely, with a proof.

Each episode is one challenge: ``reset`` serves a context (one or two sources) and a question;
the agent sends one :class:`~dipg_safety_env.models.DIPGAction` whose ``llm_response`` is its
reply in three channels (analysis → proof → final, see :mod:`.channels`); the reply is scored
and the episode ends.

Reward: the V3 "format-first" hierarchy of :mod:`.reward` (the format gate first; then a
grounded proof; then the answer, a reported conflict or an abstention; then hallucination and
safety penalties). Each component's value is an environment variable (:mod:`.weights`, e.g.
``EXACT_FORMAT_REWARD``, ``FORMAT_MISMATCH_PENALTY``, ``HALLUCINATED_TRACE_PENALTY``,
``VERIFIABLE_TRACE_REWARD``), read at every reset. ``metadata["reward_components"]`` holds 1.0
for each component that fired and ``metadata["reward_weights"]`` its value; the reward is their
total. ``observation.fired`` lists them with the reason.

Data: the shipped synthetic cases (:mod:`.cases`), or ``$DIPG_DATASET_PATH`` (JSONL).
Reset options: ``case`` (an id) or ``kind`` (``answerable``, ``conflict``, ``abstain``);
otherwise the seed draws a case. Or ``task_source`` (a task file such as the shipped
``starter.jsonl``, or a dataset) and ``task_index`` (its row; none: the seed picks one), whose
row names a ``case`` id of the data, looked up as ``case`` is: the case (context, answers,
evidence) is the data's own, and nothing of a row is run or scored.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Annotated

from pydantic import Field, TypeAdapter

from dipg_safety_env.models import DIPGAction, DIPGObservation, DIPGState
from dipg_safety_env.server import cases as case_data
from dipg_safety_env.server.cases import Case, CaseKind
from dipg_safety_env.server.reward import Verdict, score
from dipg_safety_env.server.stage import stage_svg
from dipg_safety_env.server.weights import RewardWeights
from openenv.core import Environment, InvalidAction, Svg
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows

CaseOption = Annotated[str | None, Field(max_length=80, description="A case id (else drawn)")]
KindOption = Annotated[
    CaseKind | None,
    Field(description="Draw only cases of this kind: answerable, conflict, abstain"),
]
# A row of a task file: a case of the data, by its id (looked up as the ``case`` option is).
# Nothing of a row is run or scored: the data's case (context, answers, evidence) is.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"case": ("case", "case_id", "id")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=80)]
)


def row_case(picked: PickedTask, cases: tuple[Case, ...]) -> Case:
    """The case of ``cases`` a row names; a TaskSourceError names the row and what does not
    fit."""
    case_id = picked.valid(_ROW_ID, picked.task["case"])
    found = next((c for c in cases if c.id == case_id), None)
    if found is None:
        known = ", ".join(c.id for c in cases[:20])
        raise picked.error(f"unknown case {case_id!r}; known: {known}")
    return found


class DIPGEnvironment(Environment[DIPGAction, DIPGObservation, DIPGState]):
    """One challenge per episode; one instance per session."""

    how_to_play = (
        "Read the context and the question, then write your reply in the box below as three "
        "channels, analysis → proof (a sentence copied exactly from the context) → final, and "
        "press Send. The format is checked first; made-up quotes or facts cost the most."
    )
    legend = {"✓": "component that added reward", "✗": "penalty that fired"}
    render_fps = 1

    def __init__(self) -> None:
        self._cases: tuple[Case, ...] = case_data.SYNTHETIC_CASES
        self._case: Case = self._cases[0]
        self._weights = RewardWeights()
        self._verdict: Verdict | None = None
        self._state = DIPGState()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        case: CaseOption = None,
        kind: KindOption = None,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> DIPGObservation:
        picked = TASK_ROWS.pick(task_source, task_index, self.rng, "case", case=case, kind=kind)
        self._cases = case_data.configured_cases()
        self._weights = RewardWeights.from_env()
        self._case = row_case(picked, self._cases) if picked else self._pick(case, kind)
        self._verdict = None
        self.rubric = None
        dataset = "file" if self._cases is not case_data.SYNTHETIC_CASES else "synthetic"
        self._state = DIPGState(
            episode_id=episode_id or str(uuid.uuid4()),
            case_id=self._case.id,
            dataset=dataset,
            task_source=picked.source if picked else None,
            task_index=picked.index if picked else None,
        )
        return self._observe(reward=0.0, message="Reply in three channels: analysis, proof, final.")

    def step(self, action: DIPGAction) -> DIPGObservation:
        self._state.step_count += 1
        self._state.submitted = True
        verdict = score(action.llm_response, self._case, self._weights)
        self._verdict = verdict
        self.rubric = WeightedSum(
            {f.component: FnRubric(lambda a, o: 1.0, name=f.component) for f in verdict.fired},
            {f.component: f.value for f in verdict.fired},
        )
        names = ", ".join(f.component for f in verdict.fired)
        return self._observe(done=True, message=f"Scored {verdict.total:+g}: {names}.")

    @property
    def state(self) -> DIPGState:
        return self._state

    def render(self) -> Svg:
        return Svg(stage_svg(self._case, self._verdict, self._state.dataset))

    # -- internals ------------------------------------------------------------------------

    def _pick(self, case_id: str | None, kind: CaseKind | None) -> Case:
        if case_id is not None:
            found = next((c for c in self._cases if c.id == case_id), None)
            if found is None:
                known = ", ".join(c.id for c in self._cases[:20])
                raise InvalidAction(f"unknown case {case_id!r}; known: {known}")
            return found
        pool = [c for c in self._cases if kind is None or c.kind == kind]
        if not pool:
            raise InvalidAction(f"no case of kind {kind!r} in this dataset")
        return self.rng.choice(pool)

    def _observe(
        self, reward: float | None = None, done: bool = False, message: str = ""
    ) -> DIPGObservation:
        verdict = self._verdict
        return DIPGObservation(
            case_id=self._case.id,
            context=self._case.context,
            question=self._case.question,
            submitted=verdict is not None,
            channels=dict(verdict.parsed.messages) if verdict else {},
            format_problems=list(verdict.parsed.problems) if verdict else [],
            fired=[
                {"component": f.component, "value": f.value, "reason": f.reason}
                for f in (verdict.fired if verdict else [])
            ],
            case_kind=self._case.kind if verdict else "",
            message=message,
            reward=reward,
            done=done,
        )
