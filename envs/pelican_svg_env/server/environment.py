"""Pelican SVG: draw an animal riding a vehicle as SVG, blind, in one go.

Action: ``PelicanSvgAction(svg="<svg xmlns=...>...</svg>")`` (at most 100,000 characters).
The drawing is scored in three layers and the episode ends:

1. the source gate (:mod:`.source`): a bounded XML parse; a pasted raster, text, an external
   reference or script fails the gate and the reward is 0 (every cheat is listed);
2. geometry (:mod:`.geometry`): six deterministic checks (enough shapes, inside the canvas,
   the vehicle's wheels, a rider above them, colours, composition); score = share passed;
3. the vision judge (:mod:`.judge`): the rendered PNG scored 0–10 by the operator's ``judge``
   model. Unconfigured or failing: the layer is *not judged* and says why.

Reward = 0.5 · geometry + 0.5 · judge when judged, else the geometry score alone; 0 when the
gate fails. ``metadata["reward_components"]`` / ``["reward_weights"]`` carry the layers.
A document that is not well-formed SVG (or over the bounds) ends the episode with reward 0 and
the parser's reason.

Reset options: ``task`` (one of the 30 ``<subject>-<vehicle>`` ids; else drawn by seed) and
``judge`` (``endpoint``: the operator's model, ``stand-in``: the deterministic
:class:`~.judge.PixelStatsStandInJudge`, ``off``); or, in place of ``task``, ``task_source``
(a task file such as the shipped ``starter.jsonl``, or a dataset) and ``task_index`` (its row;
none: the seed picks one), whose row names a ``task`` id, looked up as ``task`` is: the prompt
and the checks are ours, and nothing of a row is run or drawn.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from openenv.core import Environment, InvalidAction, Svg
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from pelican_svg_env.models import PelicanSvgAction, PelicanSvgObservation, PelicanSvgState
from pelican_svg_env.server import drawing, geometry, source
from pelican_svg_env.server.judge import NOT_JUDGED, Verdict, configured_judge, render_png
from pelican_svg_env.server.tasks import TASK_IDS, TASKS, Task, task_by_id

JudgeMode = Literal["endpoint", "stand-in", "off"]
# A row of a task file: one of our 30 tasks, by its id (looked up as the ``task`` option is).
# Nothing of a row is run or drawn: the task's prompt and checks are ours.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"task": ("task", "task_id", "id")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=64)]
)


def row_task(picked: PickedTask) -> str:
    """The task id a row names; a TaskSourceError names the row and what does not fit."""
    task = picked.valid(_ROW_ID, picked.task["task"])
    if task not in TASK_IDS:
        raise picked.error(f"unknown task {task!r}; known: {', '.join(TASK_IDS)}")
    return task


class PelicanSvgEnvironment(Environment[PelicanSvgAction, PelicanSvgObservation, PelicanSvgState]):
    """One blind drawing per episode; one instance per session."""

    how_to_play = (
        "Write an SVG of the animal riding the vehicle named above, without seeing it, in the "
        "box below and press Send: it is checked for cheats, measured, then judged."
    )
    legend = {"✓": "check passed", "✗": "check failed", "–": "layer not judged"}
    STEP_KIND = "io"  # the judge is an HTTP call
    render_fps = 1

    def __init__(self) -> None:
        self._task: Task = TASKS[0]
        self._state = PelicanSvgState()
        self._last = PelicanSvgObservation()
        self._drawing: tuple[str, tuple[float, float, float, float]] | None = None
        self._mode: JudgeMode = "endpoint"

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        judge: JudgeMode = "endpoint",
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> PelicanSvgObservation:
        picked = TASK_ROWS.pick(task_source, task_index, self.rng, "task", task=task)
        if picked is not None:
            task = row_task(picked)
        elif task is not None and task not in TASK_IDS:
            raise InvalidAction(f"unknown task {task!r}; known: {', '.join(TASK_IDS)}")
        self._task = task_by_id(task) if task else self.rng.choice(TASKS)
        self._mode = judge
        self._drawing = None
        self.rubric = None
        self._state = PelicanSvgState(
            episode_id=episode_id or str(uuid.uuid4()),
            task_id=self._task.task_id,
            judge_mode=judge,
            task_source=picked.source if picked else None,
            task_index=picked.index if picked else None,
        )
        self._last = PelicanSvgObservation(
            task_id=self._task.task_id,
            prompt=self._task.prompt,
            message=f"Draw {self._task.prompt} as one SVG document, blind.",
            reward=0.0,
        )
        return self._last

    def step(self, action: PelicanSvgAction) -> PelicanSvgObservation:
        self._state.step_count += 1
        self._state.submitted = True
        try:
            root = source.parse(action.svg)
        except source.SvgRejected as exc:
            return self._finish({}, [], None, f"Not scored: {exc}.")
        report = source.gate(root)
        if not report.passed:
            return self._finish(report.findings, [], None, f"Gate failed: {report.summary()}.")
        canvas = geometry.canvas_of(root)
        checks = geometry.checks(geometry.shapes_of(root), self._task, canvas)
        self._drawing = (drawing.clean_children(root), canvas)
        verdict = self._judge(drawing.standalone(root, canvas))
        passed = sum(c.passed for c in checks)
        return self._finish({}, checks, verdict, f"Scored: {passed}/{len(checks)} geometry checks.")

    @property
    def state(self) -> PelicanSvgState:
        return self._state

    def render(self) -> Svg:
        banner = (
            "nothing to draw: see why on the right"
            if self._state.submitted
            else ("your drawing appears here once sent")
        )
        return Svg(drawing.stage(self._task, self._drawing, self._scorecard(), banner))

    # -- internals ------------------------------------------------------------------------

    def _judge(self, clean_svg: str) -> Verdict:
        judge = configured_judge(self._mode)
        if judge is None:
            off = "not judged: switched off for this episode"
            reason = off if self._mode == "off" else NOT_JUDGED
            return Verdict(None, "none", reason)
        png = render_png(clean_svg)
        if png is None:
            return Verdict(None, judge.name, "not judged: the drawing could not be rendered")
        return judge.judge(png, self._task.prompt)

    def _finish(
        self,
        gate: dict[str, list[str]],
        checks: list[geometry.Check],
        verdict: Verdict | None,
        message: str,
    ) -> PelicanSvgObservation:
        scored = verdict is not None  # the gate passed and the drawing was measured
        geo = sum(c.passed for c in checks) / len(checks) if checks else 0.0
        judged = verdict is not None and verdict.score is not None
        weights = {"geometry": 0.5, "judge": 0.5} if judged else {"geometry": 1.0, "judge": 0.0}
        scores = {"geometry": geo if scored else 0.0, "judge": verdict.score if judged else 0.0}
        self.rubric = WeightedSum(
            {k: FnRubric(lambda a, o, k=k: scores[k], name=k) for k in weights}, weights
        )
        self._last = PelicanSvgObservation(
            task_id=self._task.task_id,
            prompt=self._task.prompt,
            submitted=True,
            gate=gate,
            geometry=[{"name": c.name, "passed": c.passed, "detail": c.detail} for c in checks],
            judge=_judge_field(verdict, gate),
            message=message,
            done=True,
        )
        return self._last

    def _scorecard(self) -> list[tuple[str, str]]:
        obs = self._last
        if not obs.submitted:
            return [
                (drawing.INK, "Three layers score the drawing:"),
                (drawing.GREY, "1. gate: catches cheats"),
                (drawing.GREY, "2. geometry: wheels, a rider on top"),
                (drawing.GREY, f"3. vision judge: {self._judge_label()}"),
            ]
        rows = [(drawing.INK, "1. Source gate")]
        if obs.gate:
            rows += [(drawing.RED, f"✗ {kind}: {', '.join(w)}") for kind, w in obs.gate.items()]
        elif not obs.geometry:
            rows.append((drawing.RED, f"✗ {obs.message.removeprefix('Not scored: ')}"))
        else:
            rows.append((drawing.GREEN, "✓ vector shapes only"))
        rows.append((drawing.INK, "2. Geometry"))
        for check in obs.geometry:
            mark, colour = ("✓", drawing.GREEN) if check["passed"] else ("✗", drawing.RED)
            rows.append((colour, f"{mark} {check['name']}: {check['detail']}"))
        rows.append((drawing.INK, "3. Vision judge"))
        score = obs.judge.get("score")
        reason = str(obs.judge.get("reason", ""))
        if score is None:
            rows.append((drawing.GREY, f"– {reason}"))
        else:
            rows.append((drawing.GREEN, f"{score * 10:.1f}/10 by {obs.judge.get('judge')}"))
            rows.append((drawing.GREY, reason))
        rows.append((drawing.INK, f"Reward {obs.reward if obs.reward is not None else 0:.2f}"))
        return rows

    def _judge_label(self) -> str:
        judge = configured_judge(self._mode)
        return "none configured (not judged)" if judge is None else judge.name


def _judge_field(verdict: Verdict | None, gate: dict[str, list[str]]) -> dict:
    if verdict is None:
        reason = "not judged: the gate failed" if gate else "not judged: the drawing was not parsed"
        return {"score": None, "judge": "none", "reason": reason}
    return {"score": verdict.score, "judge": verdict.judge, "reason": verdict.reason}
