"""``openenv import SOURCE --name N --output-dir D``: an env package around another
framework's environment.

``--type verifiers`` (the default): SOURCE is a Verifiers taskset id (``verifiers`` >= 0.4:
a taskset shipped in ``verifiers.v1.tasksets`` or an installed module exporting one
``vf.Taskset``). The source is built once to read its tasks, its ``Env`` and its rewards
(:mod:`openenv.importers.vf_source`); then the ``openenv init`` templates, overlaid with
``templates/verifiers``, write ``D/N_env/``: models, client, server (a subclass of
:class:`~openenv.importers.vf_env.VerifiersEnvironment` naming the source), the manifest with
its validation block, the oracle, README, tests, ``requirements.txt`` and the files package
validation builds (Dockerfile, validation/runtime.json).

``--type ors``: SOURCE is ``module:Class``, an ORS (Open Reward Standard) environment
(``ors-sdk``, or ``openreward`` which has the same shape); the package subclasses
:class:`~openenv.importers.ors_env.OrsEnvironment`, a tool environment. Without ``ors-sdk``
(or ``openreward``) installed the command says so and stops.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import json
from importlib.resources import files
from pathlib import Path
from typing import Any

from openenv.cli import ui
from openenv.cli.scaffold import EnvNames, names, render, write_package_files
from openenv.cli.ui import CliError

OVERLAYS = {kind: files("openenv.cli") / "templates" / kind for kind in ("verifiers", "ors")}
MAX_CONFIG_CHARS = 10_000
MAX_EXAMPLE_CHARS = 1_500
PLAN_REPLY = "I don't know."

HELP = """\
Write an environment package (models, client, server with its playground, openenv.yaml with a
validation block, oracle, README, tests, Dockerfile) around an environment of another
framework, so it is served, played and validated like ours.

  openenv import textarena --name wordle --config '{"game": "Wordle-v0"}'
  openenv import my_taskset --name my_tasks --output-dir envs

--type verifiers (default): SOURCE is a Verifiers taskset id (verifiers >= 0.4), a module that
exports one vf.Taskset subclass in __all__. Each of the task's @vf.reward functions becomes a
reward component with its Verifiers weight; a visitor plays the model, one message a turn, and
multi-turn envs (the taskset's own vf.Env) answer between turns.
--type ors: SOURCE is module:Class, an ORS Environment (ors-sdk's ors.Environment or
openreward's); its tools become our tool actions (CallToolAction, and /mcp), each call's
reward the step's reward."""


def add_parser(sub: Any) -> None:
    """Register ``import`` on the CLI's subcommands."""
    p = sub.add_parser(
        "import",
        help="an env package around a Verifiers (or ORS) environment",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "source", metavar="SOURCE", help="a Verifiers taskset id (textarena) or ORS module:Class"
    )
    p.add_argument("--name", required=True, help="the new environment's name, e.g. wordle")
    p.add_argument("--output-dir", default=".", help="where NAME_env/ is written (default: here)")
    p.add_argument(
        "--env-class",
        default="",
        help="verifiers: the vf.Env id that plays the tasks (default: the taskset's own); "
        "ors: the Environment class, when SOURCE is a module",
    )
    p.add_argument("--type", default="verifiers", choices=("verifiers", "ors"), dest="kind")
    p.add_argument("--config", metavar="JSON", help="the taskset's config fields, a JSON object")
    p.add_argument("--max-turns", type=int, default=20, help="turns per episode at most (20)")
    p.add_argument("--force", action="store_true", help="write into a non-empty NAME_env/")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    n = names(args.name)
    target = Path(args.output_dir).resolve() / n.package
    _check_target(n, target, args.force)
    if args.kind == "ors":
        return _run_ors(args, n, target)
    if not 1 <= args.max_turns <= 100:
        raise CliError(f"--max-turns must be between 1 and 100, got {args.max_turns}")
    config = _config(args.config)
    description = _describe(args.source, config, args.env_class)
    with ui.step(f"Writing {target}"):
        write_verifiers_package(target, n, description, args.max_turns)
    ui.ok(f"Imported {description.taskset_class} as {target}")
    for line in _summary(n, target, description):
        ui.info(line)
    return 0


def write_verifiers_package(target: Path, n: EnvNames, description: Any, max_turns: int) -> None:
    """Write the package for a described Verifiers source into ``target``."""
    render(target, n, OVERLAYS["verifiers"], **_values(description, max_turns))
    (target / "requirements.txt").write_text(
        "\n".join(_requirements(description.taskset, "verifiers")) + "\n", encoding="utf-8"
    )
    write_package_files(target, _plan(target, max_turns, {"message": PLAN_REPLY}))


def _plan(target: Path, max_turns: int, reply: dict[str, Any]) -> dict[str, Any]:
    """The runtime plan validation replays: seed 0, then ``reply`` until the episode ends (or
    ``max_turns``): these envs have no legal actions to draw from."""
    from openenv.core.registry import read_package
    from openenv.hub.runtime_plan import PLAN_ACTIONS, PLAN_SCHEMA_VERSION, PLAN_SEED, episode_id

    entry = read_package(target)
    env = entry.environment_class()()
    action_type: Any = entry.action_class()
    actions: list[dict[str, Any]] = []
    try:
        observation = env.reset(seed=PLAN_SEED, episode_id=episode_id(entry))
        while not observation.done and len(actions) < min(max_turns, PLAN_ACTIONS):
            actions.append(dict(reply))
            observation = env.step(action_type.model_validate(reply))
    finally:
        env.close()
    return {
        "plan_schema_version": PLAN_SCHEMA_VERSION,
        "reset": {"episode_id": episode_id(entry), "seed": PLAN_SEED, "options": {}},
        "actions": actions,
    }


def _run_ors(args: argparse.Namespace, n: EnvNames, target: Path) -> int:
    from openenv.importers import SourceError
    from openenv.importers.ors_source import describe

    try:
        with ui.step(f"Reading the ORS environment {args.source!r}"):
            found = describe(args.source, args.env_class)
    except SourceError as exc:
        raise CliError(str(exc)) from None
    with ui.step(f"Writing {target}"):
        write_ors_package(target, n, found)
    ui.ok(f"Imported {found.module}:{found.cls} as {target}")
    splits = ", ".join(f"{k} ({v} tasks)" for k, v in found.splits.items())
    ui.info(f"  splits: {splits}   tools: {', '.join(t for t, _ in found.tools)}")
    ui.info(f"\nNext:\n  openenv validate {target}\n  openenv serve {target}")
    return 0


def write_ors_package(target: Path, n: EnvNames, d: Any) -> None:
    """Write the package for a described ORS source into ``target``."""
    tools = [name for name, _ in d.tools]
    values = {
        "source": f"{d.module}:{d.cls}",
        "module_literal": json.dumps(d.module),
        "class_literal": json.dumps(d.cls),
        "splits_inline": ", ".join(f"{k} ({v} tasks)" for k, v in d.splits.items()),
        "tools_inline": ", ".join(tools) or "none",
        "tools_md": "\n".join(
            f"- `{name}`: {' '.join(desc.split())[:300]}" for name, desc in d.tools
        ),
        "tools_json": json.dumps(tools),
        "first_tool": tools[0] if tools else "",
        "description_yaml": json.dumps(f"The ORS environment {d.module}:{d.cls}, with its tools"),
        "example": d.first_prompt[:MAX_EXAMPLE_CHARS].replace("```", "'''"),
    }
    render(target, n, OVERLAYS["ors"], **values)
    (target / "requirements.txt").write_text(
        "\n".join(_requirements(d.module, "ors-sdk")) + "\n", encoding="utf-8"
    )
    first: dict[str, Any] = {"type": "call_tool", "tool_name": tools[0] if tools else ""}
    first["arguments"] = {}
    write_package_files(target, _plan(target, 1, first))


# -- checks ---------------------------------------------------------------------------------


def _check_target(n: EnvNames, target: Path, force: bool) -> None:
    if target.exists() and not target.is_dir():
        raise CliError(f"{target} exists and is not a directory")
    if target.is_dir() and any(target.iterdir()) and not force:
        raise CliError(f"{target} exists and is not empty: pass --force to write into it")
    spec = importlib.util.find_spec(n.package)
    if spec is not None and spec.origin is not None:
        where = Path(spec.origin).resolve().parent
        if where != target:
            raise CliError(
                f"{n.package} is already an importable package ({where}): the new one would be "
                "shadowed by it or shadow it; pick another --name"
            )


def _config(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    if len(raw) > MAX_CONFIG_CHARS:
        raise CliError(f"--config is longer than {MAX_CONFIG_CHARS} characters")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CliError(f"--config is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise CliError('--config must be a JSON object, e.g. \'{"game": "Wordle-v0"}\'')
    return value


def _describe(source: str, config: dict[str, Any], env_id: str) -> Any:
    from openenv.importers import SourceError
    from openenv.importers.vf_source import describe

    try:
        with ui.step(f"Reading the Verifiers taskset {source!r}"):
            return describe(source, config, env_id)
    except SourceError as exc:
        raise CliError(str(exc)) from None


# -- what the templates get -----------------------------------------------------------------


def _values(d: Any, max_turns: int) -> dict[str, str]:
    low, high = d.reward_range
    kind = "multi-turn" if d.multi_turn else "single-turn"
    rewards_md = "\n".join(f"- `{name}`: weight {weight:g}" for name, weight in d.rewards)
    tags = ["verifiers", "text", kind]
    description = f"The Verifiers taskset {d.taskset} ({d.taskset_class}, {kind}), played by hand"
    example = (d.system_prompt + "\n\n" if d.system_prompt else "") + d.first_prompt
    return {
        "taskset": d.taskset,
        "taskset_class": d.taskset_class,
        "taskset_literal": repr(d.taskset),
        "config_literal": repr(d.config),
        "env_id_literal": repr(d.env_id),
        "max_turns": str(max_turns),
        "kind": kind,
        "count": "endless, seeded" if d.count is None else f"{d.count} tasks",
        "rewards_inline": ", ".join(f"{name} x{weight:g}" for name, weight in d.rewards)
        or "rewards the env records",
        "rewards_md": rewards_md or "- the rewards the env's `run()` records",
        "metrics_md": ", ".join(f"`{m}`" for m in d.metrics) or "none",
        "ending": "One reply ends the episode."
        if not d.multi_turn
        else f"The env answers each reply; it ends the episode (or {max_turns} turns do).",
        "reward_low": f"{low:g}",
        "reward_high": f"{high:g}",
        "floor_margin": f"{(high - low) / 2:g}",
        "description_yaml": json.dumps(description),
        "tags": json.dumps(tags),
        "example": example[:MAX_EXAMPLE_CHARS].replace("```", "'''"),
        "verifiers_version": d.verifiers_version,
        "tools_md": (
            f"The task's tools ({', '.join(d.toolsets)}, called here in-process): an action "
            "with `tool=NAME, arguments={...}` calls one inside the open turn, and its result "
            "joins the conversation; the observation's `tools` lists them."
            if d.toolsets
            else "The task has no tools."
        ),
    }


def _requirements(module: str, framework: str) -> list[str]:
    """The framework's SDK pinned as installed, and the distribution of the source's module."""
    lines = []
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        lines.append(f"{framework}=={importlib.metadata.version(framework)}")
    top = module.replace("-", "_").split(".")[0]
    for dist in importlib.metadata.packages_distributions().get(top, []):
        if dist != framework:
            lines.append(f"{dist}=={importlib.metadata.version(dist)}")
    return lines


def _summary(n: EnvNames, target: Path, d: Any) -> list[str]:
    lines = [
        f"  tasks:    {'endless (seeded)' if d.count is None else d.count}"
        f"   env: {d.env_class}   rewards: "
        + (", ".join(f"{name} x{w:g}" for name, w in d.rewards) or "recorded by the env")
    ]
    if d.toolsets:
        lines.append(
            f"  tools of {', '.join(d.toolsets)}: called in-process as tool actions "
            "(tool=NAME, arguments={...}); a tool needing its sandbox will fail"
        )
    lines += [
        "",
        "Next:",
        f"  openenv validate {target}",
        f"  openenv serve {target}       then open http://localhost:8000/web/",
    ]
    return lines
