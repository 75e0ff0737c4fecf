"""Conformance checks that any environment can run: ``check_env(env)``, and
``check_task_source(...)`` for one whose reset takes tasks from task files.

Modelled on Gymnasium's env checker: it exercises the contract written in
:class:`openenv.core.Environment` and raises :class:`EnvCheckError` with a message saying what
to fix. It returns a list of notes about checks it could not run (e.g. no episode ended).
"""

from __future__ import annotations

import json
import os
import random
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from openenv.core import (
    Action,
    ActionChoice,
    ActionSliders,
    Board,
    Environment,
    Frame,
    InvalidAction,
    Observation,
    ResetNeeded,
    State,
    Svg,
    Text,
)
from openenv.core.rubrics.components import TOLERANCE, weighted_total
from openenv.core.serialization import model_from_wire, observation_to_wire, step_result_from_wire
from openenv.core.task_source import (
    SHIPPED_DIR,
    TASK_DIR_ENV,
    PickedTask,
    TaskRows,
    load_task_rows,
    shipped_task_files,
)


class EnvCheckError(AssertionError):
    """The environment breaks the contract; the message says how."""


ActionSource = Callable[[Environment, random.Random], Any]


def check_env(
    env: Environment,
    *,
    seed: int = 7,
    steps: int = 30,
    actions: ActionSource | None = None,
    reset_kwargs: dict[str, Any] | None = None,
    wall_clock_fields: Sequence[str] = (),
) -> list[str]:
    """Check ``env`` against the Environment contract; return notes on skipped checks.

    ``actions(env, rng)`` picks the next action; by default a seeded choice among
    ``legal_actions()``, else random values of ``action_sliders()``. ``reset_kwargs`` are
    extra reset options used for every reset. ``wall_clock_fields`` are dotted observation
    paths (``result.execution_time``) that legitimately differ between runs: determinism
    compares everything else.
    """
    notes: list[str] = []
    action_cls, obs_cls, _ = type(env).wire_types()
    _require(
        action_cls is not None and obs_cls is not None,
        f"{type(env).__name__} must subclass Environment[ActionCls, ObservationCls, StateCls]",
    )
    kwargs = dict(reset_kwargs or {})
    pick = actions or _pick_legal
    clock = tuple(wall_clock_fields)

    _check_step_before_reset(env, action_cls, pick)
    _check_unknown_reset_option(env)
    first = _check_reset(env, obs_cls, seed, kwargs)
    _check_state(env)
    _check_hooks(env, action_cls)
    again = env.reset(seed=seed, **kwargs)
    _require(
        _dump(first, clock) == _dump(again, clock),
        "reset(seed=s) twice gave different observations; draw randomness from self.rng",
    )
    run_a = _rollout(env, pick, seed, kwargs, steps, action_cls, obs_cls, clock)
    run_b = _rollout(env, pick, seed, kwargs, steps, action_cls, obs_cls, clock)
    _require(run_a == run_b, _first_difference(run_a, run_b))
    if not run_a:
        notes.append("no actions available: step determinism not checked")
    _check_after_done(env, pick, seed, kwargs, action_cls, notes)
    env.close()
    env.close()
    return notes


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise EnvCheckError(message)


def _dump(obs: Observation, clock: Sequence[str] = ()) -> str:
    """The observation as JSON, its wall-clock fields (dotted paths) masked."""
    if not clock:
        return obs.model_dump_json()
    from openenv.validation.evidence import masked

    return json.dumps(masked(json.loads(obs.model_dump_json()), clock), sort_keys=True)


def _pick_legal(env: Environment, rng: random.Random) -> Any:
    choices = env.legal_actions()
    if choices:
        return rng.choice(choices).action
    sliders = env.action_sliders()
    return None if sliders is None else sliders.action_for(sliders.sample(rng))


def _as_action(raw: Any, action_cls: type[Action]) -> Action:
    return model_from_wire(raw, action_cls)


def _check_step_before_reset(
    env: Environment, action_cls: type[Action], pick: ActionSource
) -> None:
    try:
        env.step(action_cls.model_construct())
    except ResetNeeded:
        return
    except Exception as exc:  # the check reports any other outcome as a contract breach
        raise EnvCheckError(f"step() before reset() must raise ResetNeeded, got {exc!r}") from exc
    raise EnvCheckError("step() before reset() must raise ResetNeeded, it returned normally")


def _check_unknown_reset_option(env: Environment) -> None:
    if type(env).accepts_any_reset_option():
        return
    try:
        env.reset(seed=0, definitely_not_an_option=1)
    except InvalidAction:
        return
    raise EnvCheckError("reset() with an unknown option must raise InvalidAction")


def _check_reset(env: Environment, obs_cls: type, seed: int, kwargs: dict) -> Observation:
    obs = env.reset(seed=seed, **kwargs)
    _require(
        isinstance(obs, obs_cls), f"reset() returned {type(obs).__name__}, not {obs_cls.__name__}"
    )
    _check_round_trip(obs, obs_cls)
    _require(not obs.done, "reset() returned an observation with done=True")
    return obs


def _check_round_trip(obs: Observation, obs_cls: type) -> None:
    wire = json.loads(json.dumps(observation_to_wire(obs)))
    back = step_result_from_wire(wire, obs_cls).observation
    _require(
        back.model_dump(mode="json") == obs.model_dump(mode="json"),
        f"{obs_cls.__name__} does not survive a JSON round trip: use JSON-friendly fields",
    )


def _check_state(env: Environment) -> None:
    state = env.state
    _require(isinstance(state, State), f"state returned {type(state).__name__}, not a State")
    dumped = json.loads(state.model_dump_json())
    _require(
        type(state).model_validate(dumped).model_dump(mode="json") == dumped,
        "state does not survive a JSON round trip",
    )
    _require(state.step_count == 0, f"state.step_count is {state.step_count} right after reset")


def _check_hooks(env: Environment, action_cls: type[Action]) -> None:
    view = env.render()
    _require(
        view is None or isinstance(view, Frame | Board | Text | Svg),
        f"render() returned {type(view).__name__}; return a Frame, Board, Text, Svg or None",
    )
    choices = env.legal_actions()
    _require(isinstance(choices, Sequence), "legal_actions() must return a list")
    for choice in choices:
        _require(isinstance(choice, ActionChoice), "legal_actions() must return ActionChoice items")
        _as_action(choice.action, action_cls)
    sliders = env.action_sliders()
    _require(
        sliders is None or isinstance(sliders, ActionSliders),
        f"action_sliders() returned {type(sliders).__name__}; return ActionSliders or None",
    )
    if sliders is not None:
        _as_action(sliders.action_for(sliders.start), action_cls)


def _rollout(
    env, pick, seed, kwargs, steps, action_cls, obs_cls, clock=()
) -> list[tuple[str, str]]:
    env.reset(seed=seed, **kwargs)
    rng = random.Random(seed)
    trace = []
    for _ in range(steps):
        raw = pick(env, rng)
        if raw is None:
            break
        obs = env.step(_as_action(raw, action_cls))
        _require(isinstance(obs, obs_cls), f"step() returned {type(obs).__name__}")
        _check_round_trip(obs, obs_cls)
        _check_reward_components(obs)
        trace.append((json.dumps(raw, sort_keys=True, default=str), _dump(obs, clock)))
        if obs.done:
            break
    _require(
        env.state.step_count == len(trace) or not trace,
        f"state.step_count is {env.state.step_count} after {len(trace)} steps",
    )
    return trace


def _check_reward_components(obs: Observation) -> None:
    total = weighted_total(obs.metadata)
    if total is None:
        return
    _require(
        obs.reward is not None and abs(float(obs.reward) - total) <= TOLERANCE,
        f"reward {obs.reward} != weighted total {total} of metadata['reward_components']",
    )


def _first_difference(a: list, b: list) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"same seed and actions gave different step {i}: {x[1]} vs {y[1]}"
    return f"same seed and actions gave episodes of different lengths ({len(a)} vs {len(b)})"


def _check_after_done(env, pick, seed, kwargs, action_cls, notes: list[str], budget: int = 2000):
    env.reset(seed=seed, **kwargs)
    rng = random.Random(seed)
    for _ in range(budget):
        raw = pick(env, rng)
        if raw is None:
            notes.append("no actions available: after-done behaviour not checked")
            return
        if env.step(_as_action(raw, action_cls)).done:
            break
    else:
        notes.append(f"no episode ended within {budget} steps: after-done behaviour not checked")
        return
    before = env.state.model_dump_json()
    try:
        env.step(_as_action(raw, action_cls))
    except ResetNeeded:
        _require(env.state.model_dump_json() == before, "a refused step after done changed state")
        return
    raise EnvCheckError("step() after done=True must raise ResetNeeded")


# -- tasks from task files (task_source / task_index) ---------------------------------------

BadRow = tuple[Mapping[str, Any], str]
Played = Callable[[Environment, Observation], tuple[Any, Any]]


def check_task_source(
    env_factory: Callable[[], Environment],
    task_rows: TaskRows,
    *,
    rows: int,
    gives: str,
    replaced: Mapping[str, Any] | Iterable[tuple[str, Any]],
    source: str | None = None,
    played: Played | None = None,
    read: Callable[[PickedTask], Any] | None = None,
    bad_rows: Iterable[BadRow] = (),
    seed: int = 4,
) -> None:
    """Check the task-source contract of an environment whose reset takes ``task_source`` and
    ``task_index`` through ``task_rows`` (its :class:`~openenv.core.task_source.TaskRows`).

    * ``env_factory()`` builds a fresh environment (closed at the end).
    * ``source`` is the shipped task file to play (default: the only one); it holds ``rows``.
    * ``gives`` is what a row gives, the word the environment passes to ``TASK_ROWS.pick``
      (``"task"``, ``"question"``); ``replaced`` the reset options a row replaces, each with a
      value to name beside a ``task_source`` (pairs to try one option with several values).
    * ``played(env, obs)`` says which row a reset played, as ``(task_source, task_index)``;
      ``obs`` is the reset's observation (default: those two fields of the state; see
      :func:`played_in_state` for others).
    * ``read(picked)`` does what the reset does with a picked row (the environment's
      ``row_task``), raising ``InvalidAction`` for a row that does not fit.
    * ``bad_rows`` are ``(row, pattern)`` pairs: each row, alone in a task file, is refused
      with a message that names it (``row 0 of bad.jsonl``) and matches ``pattern``
      (``re.search``).

    It checks that the file ships with ``rows`` rows, each read by ``read``; that its first
    and last rows play as picked and a seed picks the same row twice; that the playground form
    offers the shipped files as an optional drop-down and bounds the row number by their rows,
    and that its defaults, sent with a ``task_source``, reset; that each replaced option beside
    a ``task_source``, a ``task_index`` without one, the row past the last and a file the
    server does not offer are refused, saying so; and that each bad row is refused. Raises
    :class:`EnvCheckError` naming the first broken promise.
    """
    shipped = shipped_task_files(task_rows.package_dir)
    if source is None:
        _require(len(shipped) == 1, f"name the task file to check: the package ships {shipped}")
        source = shipped[0]
    _require(source in shipped, f"{source!r} is not a shipped task file; shipped: {shipped}")
    pairs = list(replaced.items() if isinstance(replaced, Mapping) else replaced)
    _require(bool(pairs), "name at least one reset option a row replaces (replaced=...)")
    _require(rows >= 1, f"rows must be at least 1, got {rows}")
    found = len(load_task_rows(Path(task_rows.package_dir) / SHIPPED_DIR / source))
    _require(found == rows, f"{source} has {found} rows, not the {rows} expected")
    for index in range(rows):
        try:
            picked = _pick(task_rows, source, index)
            if read is not None:
                read(picked)
        except InvalidAction as exc:
            raise EnvCheckError(f"the shipped row {index} of {source} is refused: {exc}") from exc
    folder = Path(task_rows.package_dir) / SHIPPED_DIR
    last = max(len(load_task_rows(folder / name)) for name in shipped) - 1  # the form's bound
    env = env_factory()
    try:
        _check_rows_play(env, source, rows, played or played_in_state(), seed)
        _check_task_form(env, source, shipped, last)
        _check_task_refusals(env, source, rows, last, gives, pairs)
    finally:
        env.close()
    for row, pattern in bad_rows:
        _check_bad_row(task_rows, read, row, pattern)


def _pick(task_rows: TaskRows, source: str, index: int) -> PickedTask:
    picked = task_rows.pick(source, index, random.Random(0))
    assert picked is not None  # a source was named
    return picked


def played_in_state(source: str = "task_source", index: str = "task_index") -> Played:
    """A ``played`` for :func:`check_task_source`: the row a reset played, as the state's
    ``source`` and ``index`` fields hold it (``played_in_state(index="task_row")`` where the
    state's ``task_index`` means something else)."""

    def played(env: Environment, obs: Observation) -> tuple[Any, Any]:
        state = env.state
        return getattr(state, source, None), getattr(state, index, None)

    return played


def _check_rows_play(env: Environment, source: str, rows: int, played: Played, seed: int) -> None:
    for index in sorted({0, rows - 1}):
        obs = _reset_plays(env, seed=seed, task_source=source, task_index=index)
        shown = played(env, obs)
        _require(
            tuple(shown) == (source, index),
            f"reset(task_source={source!r}, task_index={index}) played {shown} "
            f"(task_source, task_index); expected {(source, index)}",
        )
    picks = [played(env, _reset_plays(env, seed=seed, task_source=source)) for _ in range(2)]
    _require(
        picks[0] == picks[1] and picks[0][0] == source,
        f"reset(seed={seed}, task_source={source!r}) twice played {picks}: "
        "pick the row with self.rng",
    )


def _check_task_form(env: Environment, source: str, shipped: Sequence[str], last: int) -> None:
    from openenv.web.forms import initial_value, parse_values, reset_fields

    specs = reset_fields(type(env))
    fields = {spec.name: spec for spec in specs}
    _require(
        {"task_source", "task_index"} <= set(fields),
        f"the reset form has no task picker; its fields: {', '.join(fields)}",
    )
    picker, row = fields["task_source"], fields["task_index"]
    _require(
        (picker.kind, picker.choices, picker.required) == ("enum", tuple(shipped), False),
        f"the form's task_source is {picker.kind} {picker.choices} (required={picker.required});"
        f" expected an optional drop-down of the shipped files {tuple(shipped)}",
    )
    _require(
        (row.kind, row.minimum, row.maximum) == ("int", 0, last),
        f"the form's task_index is {row.kind} {row.minimum}..{row.maximum}; expected int 0..{last}",
    )
    data, errors = parse_values(specs, [initial_value(spec) for spec in specs])
    _require(not errors, f"the reset form does not read its own defaults back: {errors}")
    data.update(task_source=source, task_index=0)
    what = (
        f"{_call(data)} (the form's defaults with a task_source: a default as the form sends it"
        " must not count as an option given beside a task_source)"
    )
    _reset_plays(env, what, seed=0, **data)


def _check_task_refusals(
    env: Environment, source: str, rows: int, last: int, gives: str, pairs: list[tuple[str, Any]]
) -> None:
    for name, value in pairs:
        says = f"a task_source gives the {gives}: leave {name} out"
        _refused(env, says, task_source=source, **{name: value})
    for index in (0, rows - 1):
        _refused(env, "task_index picks a row of a task_source", task_index=index)
    past = (  # the form's bound refuses it, or (a smaller file than the largest) the file's
        f"task_index={rows}: should be less than or equal to {last}"
        if rows - 1 == last
        else f"task_index {rows} is out of range: {source} has {rows} rows"
    )
    _refused(env, past, task_source=source, task_index=rows)
    for name in ("other.jsonl", f"../{source}", "/etc/passwd"):  # the drop-down's own message
        _refused(env, "should be", repr(source), task_source=name)


def _reset_plays(env: Environment, what: str = "", **options: Any) -> Observation:
    """``env.reset(**options)``, an EnvCheckError saying ``what`` was refused when it is."""
    try:
        return env.reset(**options)
    except InvalidAction as exc:
        raise EnvCheckError(f"{what or _call(options)} is refused: {exc}") from exc


def _refused(env: Environment, *says: str, **options: Any) -> None:
    """``env.reset(seed=0, **options)`` raises InvalidAction saying each of ``says``."""
    expected = " ... ".join(says)
    try:
        env.reset(seed=0, **options)
    except InvalidAction as exc:
        _require(
            all(part in str(exc) for part in says),
            f"{_call(options)} was refused with {str(exc)!r}; expected it to say {expected!r}",
        )
        return
    raise EnvCheckError(
        f"{_call(options)} must raise InvalidAction ({expected!r}); it was accepted"
    )


def _call(options: Mapping[str, Any]) -> str:
    return "reset(" + ", ".join(f"{key}={value!r}" for key, value in options.items()) + ")"


def _check_bad_row(
    task_rows: TaskRows,
    read: Callable[[PickedTask], Any] | None,
    row: Mapping[str, Any],
    pattern: str,
) -> None:
    with tempfile.TemporaryDirectory() as folder, _operator_task_dir(folder):
        (Path(folder) / "bad.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
        try:
            picked = _pick(task_rows, "bad.jsonl", 0)
            if read is not None:
                read(picked)
        except InvalidAction as exc:
            message = str(exc)
            _require(
                "row 0 of bad.jsonl" in message and re.search(pattern, message) is not None,
                f"the row {row} was refused with {message!r}; expected it named "
                f"(row 0 of bad.jsonl) and {pattern!r}",
            )
            return
    raise EnvCheckError(f"the row {row} must be refused with InvalidAction; it was read")


@contextmanager
def _operator_task_dir(folder: str) -> Iterator[None]:
    """``OPENENV_TASK_DIR`` set to ``folder`` for the block (task files there may be named)."""
    before = os.environ.get(TASK_DIR_ENV)
    os.environ[TASK_DIR_ENV] = folder
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(TASK_DIR_ENV, None)
        else:
            os.environ[TASK_DIR_ENV] = before
