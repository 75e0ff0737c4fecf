"""``openenv harbor``: what this machine can do for Harbor rollouts, and the test engine.

``openenv harbor info --llm-url URL`` is read-only and boots nothing: the endpoint's capture level
(probed: ``[TRAIN]`` or ``[EVAL ONLY]``), which sandboxes are usable here (with the reason for
each that is not), the datasets given and their task counts, which harness CLIs are on PATH, and
how many tasks of each local dataset Harbor's own task model agrees on (``harbor check``).
``openenv harbor engine`` serves the shipped test engine (a tiny model, or a scripted test policy).
``openenv harbor check --dataset X`` reads each task of X with Harbor's own task model too (the
``harbor`` package, installed by ``openenv harbor install harbor``) and prints each difference.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openenv.cli import ui
from openenv.cli.ui import CliError

HELP = """\
info: the endpoint's capture level ([TRAIN] needs token ids and processed logprobs; anything else
is [EVAL ONLY]), the sandboxes usable here and why the others are not, the datasets and their task
counts, the harness CLIs installed, and (with the harbor package installed) how many of a local
dataset's tasks Harbor's own task model reads as we do. Read-only: it starts no sandbox and no
agent.
proxy: probe the endpoint ([TRAIN] or [EVAL ONLY]) before binding, then serve the capture proxy
(agents' base URL <proxy>/v1, their API key a session id minted on POST /capture/sessions with
the admin token).
engine: the shipped OpenAI-compatible test engine in vLLM's format (a tiny random-weight model,
or with --script a scripted TEST policy replaying fixed tool calls; its tokens and logprobs are
real).
rollout: run one harness (mini-swe-agent, codex, claude-code, opencode, gemini-cli) on one task in
a sandbox against a capture proxy, run the task's verifier there, print the reward and the trace
(without --llm-url, the shipped scripted TEST engine plays the model, offline).
serve: the Task API, the run_rollout MCP tool and the /web UI over the datasets.
check: read each task of the datasets with Harbor's own task model too (the harbor package from
PyPI, in a Python >= 3.12 virtualenv of its own) and print each task it refuses or reads otherwise
(timeouts, docker image, verifier env, instruction); exit 1 when any differs.
install: put a harness under the harness home (mini-swe-agent: a virtualenv from PyPI; the
others: their pinned npm package); `install harbor` puts the harbor package there."""
MAX_PROBLEMS_SHOWN = 10
MAX_CHECKED_TASKS = 500  # harbor_pypi.MAX_CHECKED_TASKS (not imported: the CLI loads lazily)
HARNESSES = {
    "opencode": "opencode",
    "codex": "codex",
    "claude-code": "claude",
    "gemini-cli": "gemini",
    "mini-swe-agent": "mini",
}


@dataclass
class Check:
    """One line of the report: a name, whether it is usable, and why not."""

    name: str
    ok: bool
    reason: str = ""


def add_parser(sub: Any) -> None:
    """Register ``harbor`` (``info``, ``engine``) on the CLI's subcommands."""
    p = sub.add_parser(
        "harbor",
        help="Harbor rollouts: endpoint capture level, sandboxes, test engine, rollout",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inner = p.add_subparsers(dest="harbor_command", metavar="SUBCOMMAND", required=True)
    info = inner.add_parser("info", help="what this machine can do (read-only)")
    info.add_argument("--llm-url", help="an OpenAI-compatible /v1 URL (vLLM, SGLang, a provider)")
    info.add_argument("--model", help="the model to probe (default: the endpoint's first)")
    info.add_argument("--api-key", help="the endpoint's key (default: $OPENENV_LLM_API_KEY)")
    info.add_argument("--auth-header", default="Authorization", help="header the key goes in")
    info.add_argument(
        "--dataset",
        action="append",
        default=[],
        help="a task or dataset folder, or a Hub dataset org/name[@revision]; a comma list is "
        "several splits (repeatable)",
    )
    info.set_defaults(run=_info)
    check = inner.add_parser("check", help="read the tasks with Harbor's own task model too")
    check.add_argument("--dataset", action="append", required=True, help="as for info")
    check.add_argument(
        "--limit", type=int, default=MAX_CHECKED_TASKS, help="tasks checked per dataset, at most"
    )
    check.add_argument("--json", action="store_true", help="print the results as JSON")
    check.set_defaults(run=_check)
    proxy = inner.add_parser("proxy", help="probe an endpoint, then serve the capture proxy")
    proxy.add_argument("--llm-url", required=True, help="the endpoint's OpenAI /v1 URL")
    proxy.add_argument("--model", help="the model to ask for (default: the endpoint's first)")
    proxy.add_argument("--api-key", help="the endpoint's key (default: $OPENENV_LLM_API_KEY)")
    proxy.add_argument("--auth-header", default="Authorization", help="header the key goes in")
    proxy.add_argument("--host", default="127.0.0.1")
    proxy.add_argument("--port", type=int, default=8010)
    proxy.add_argument(
        "--admin-token",
        help="token of the session API (default: $OPENENV_CAPTURE_ADMIN_TOKEN, else a new one)",
    )
    proxy.set_defaults(run=_proxy)
    engine = inner.add_parser("engine", help="serve the shipped test engine")
    engine.add_argument("--script", type=Path, help="scripted test policy: a JSON list of steps")
    engine.add_argument("--host", default="127.0.0.1")
    engine.add_argument("--port", type=int, default=8001)
    engine.add_argument("--logprobs-mode", choices=["processed", "raw"], default="processed")
    engine.set_defaults(run=_engine)
    from openenv.cli.harbor_rollout import add_parsers

    add_parsers(inner)
    from openenv.cli.harbor_serve import add_serve_parser

    add_serve_parser(inner)


def sandbox_checks() -> list[Check]:
    """Each sandbox backend and whether it can be used here (nothing is started)."""
    return [_process(), _docker(), *(_hosted(n, m, e) for n, m, e in _HOSTED)]


_HOSTED = [
    ("e2b", "e2b", "E2B_API_KEY"),
    ("modal", "modal", "MODAL_TOKEN_ID"),
    ("daytona", "daytona", "DAYTONA_API_KEY"),
]


def _process() -> Check:
    from openenv.core.harness.sandboxes import process_sandbox_status

    return Check("process", *process_sandbox_status())


def _docker() -> Check:
    if importlib.util.find_spec("docker") is None:
        return Check("docker", False, "SDK not installed (the docker extra)")
    import docker

    try:
        docker.from_env(timeout=5).ping()
    except Exception as exc:  # the SDK raises several unrelated types for "no daemon"
        return Check("docker", False, f"Docker daemon is not reachable ({type(exc).__name__})")
    return Check("docker", True)


def _hosted(name: str, module: str, env: str) -> Check:
    if importlib.util.find_spec(module) is None:
        return Check(name, False, f"SDK not installed ({module})")
    if not os.environ.get(env):
        return Check(name, False, f"no credentials (${env} is unset)")
    return Check(name, True)


def dataset_lines(specs: list[str]) -> list[str]:
    """``datasets  N split(s), M tasks`` and a line per split (its task count, or why it cannot
    be read) with the tasks that cannot be read. Read-only: a local folder is read, a Hub dataset's
    file list is (nothing is downloaded; offline, its copy in the cache is read)."""
    from openenv.core.harness.tasks import TaskError
    from openenv.core.harness.tasks.datasets import split_specs, survey_split

    try:
        names = split_specs(specs)
    except TaskError as exc:
        return [f"datasets  {exc}"]
    lines, total, failed = [], 0, 0
    for name in names:
        try:
            survey = survey_split(name)
        except TaskError as exc:
            failed += 1
            lines.append(f"  [--]   {name:<14} {str(exc).removeprefix(f'{name}: ')}")
            continue
        total += survey.tasks
        where = survey.source + (f" @{survey.revision[:12]}" if survey.revision else "")
        size = f", {_size(survey.size_bytes)}" if survey.size_bytes is not None else ""
        note = f"; {survey.note}" if survey.note else ""
        mark = "[ok]" if survey.tasks else "[--]"
        lines.append(f"  {mark}   {name:<14} {survey.tasks} task(s){size} ({where}{note})")
        for problem in survey.problems[:MAX_PROBLEMS_SHOWN]:
            lines.append(f"           not read: {problem.task}: {problem.reason}")
        if len(survey.problems) > MAX_PROBLEMS_SHOWN:
            lines.append(f"           ... and {len(survey.problems) - MAX_PROBLEMS_SHOWN} more")
    unreadable = f" ({failed} unreadable)" if failed else ""
    return [f"datasets  {len(names)} split(s), {total} tasks{unreadable}", *lines]


def _size(n: int) -> str:
    """Bytes for a person: ``512 bytes``, ``12.3 KB``, ``4.0 MB``, ``1.2 GB``."""
    value, unit = float(n), "bytes"
    for bigger in ("KB", "MB", "GB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{n} bytes" if unit == "bytes" else f"{value:.1f} {unit}"


def harness_checks() -> list[Check]:
    """Each known harness and whether it can run (installed in its virtualenv, or on PATH)."""
    from openenv.core.harness.harnesses import HARNESSES as RUNNABLE
    from openenv.core.harness.harnesses import get_harness

    checks = []
    for name, command in HARNESSES.items():
        if name in RUNNABLE:
            harness = get_harness(name)
            problem = harness.problem()
            needs = harness.container_needs()
            ready = f"installed, runs rollouts; in docker the image needs {needs}"
            checks.append(Check(name, problem is None, problem or ready))
            continue
        found = shutil.which(command) is not None
        checks.append(Check(name, found, f"`{command}` " + ("found" if found else "not on PATH")))
    return checks


def _print(title: str, checks: list[Check], noun: str) -> None:
    usable = sum(c.ok for c in checks)
    ui.info(f"{title:<9} {usable} of {len(checks)} {noun}")
    for c in checks:
        ui.info(f"  {'[ok]' if c.ok else '[--]'}   {c.name:<14} {c.reason}")


def _info(args: argparse.Namespace) -> int:
    from openenv.core.harness.capture.probe import ProbeError, describe, probe_capture_level

    if args.llm_url:
        key = args.api_key or os.environ.get("OPENENV_LLM_API_KEY")
        try:
            level = probe_capture_level(
                args.llm_url, model=args.model, api_key=key, auth_header=args.auth_header
            )
        except ProbeError as exc:
            raise CliError(f"llm: {exc}") from exc
        ui.info(f"llm       {args.llm_url}  {describe(level)}")
    else:
        ui.info("llm       none given (--llm-url): capture level not probed")
    _print("sandboxes", sandbox_checks(), "usable")
    if args.dataset:
        for line in dataset_lines(args.dataset):
            ui.info(line)
    _print("harnesses", harness_checks(), "installed")
    if args.dataset:
        for line in harbor_lines(args.dataset):
            ui.info(line)
    return 0


def harbor_lines(specs: list[str]) -> list[str]:
    """``harbor    ...`` and, per local dataset, ``checked with harbor 0.26.0: N tasks agree, M
    differ`` (a Hub dataset is checked by ``harbor check``, which downloads it)."""
    from openenv.core.harness.harbor_pypi import HarborCheckError, check_split, harbor_problem
    from openenv.core.harness.tasks import TaskError
    from openenv.core.harness.tasks.datasets import load_split, split_specs
    from openenv.core.harness.tasks.hub import parse_hub_spec

    problem = harbor_problem()
    if problem:
        return [f"harbor    {problem}"]
    try:
        names = split_specs(specs)
    except TaskError as exc:
        return [f"harbor    {exc}"]
    lines = ["harbor    Harbor's own task model (the harbor package) on the datasets' tasks"]
    for name in names:
        if parse_hub_spec(name) is not None:
            lines.append(f"  [--]   {name:<14} `openenv harbor check --dataset {name}` checks it")
            continue
        try:
            result = check_split(load_split(name))
        except (TaskError, HarborCheckError) as exc:
            lines.append(f"  [--]   {name:<14} {exc}")
            continue
        lines.append(f"  {'[--]' if result.differ else '[ok]'}   {name:<14} {result.line()}")
    return lines


def _check(args: argparse.Namespace) -> int:
    from openenv.core.harness.harbor_pypi import HarborCheckError, check_split, harbor_problem
    from openenv.core.harness.tasks import TaskError
    from openenv.core.harness.tasks.datasets import load_splits

    problem = harbor_problem()
    if problem:
        raise CliError(problem)
    if not 0 < args.limit <= MAX_CHECKED_TASKS:
        raise CliError(f"--limit must be in 1..{MAX_CHECKED_TASKS}, got {args.limit}")
    try:
        checked = [(s, check_split(s, limit=args.limit)) for s in load_splits(args.dataset)]
    except (TaskError, HarborCheckError) as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        print(json.dumps([{"dataset": s.name, **dataclasses.asdict(r)} for s, r in checked]))
    for split, result in [] if args.json else checked:
        ui.info(f"{split.name}: {result.line()}")
        for item in result.differ:
            ui.info(f"  differs: {item.task}: {item.reason}")
        for name in result.both_refuse:
            ui.info(f"  refused by both: {name}")
    return 1 if any(r.differ for _, r in checked) else 0


def _engine(args: argparse.Namespace) -> int:
    import uvicorn

    from openenv.core.harness.engine import Engine, ScriptedPolicy, create_engine_app

    script = ScriptedPolicy.load(args.script) if args.script else None
    engine = Engine(script=script, logprobs_mode=args.logprobs_mode)
    mode = "scripted TEST policy" if script else "tiny random-weight model"
    ui.ok(f"test engine ({mode}) at http://{args.host}:{args.port}/v1")
    uvicorn.run(create_engine_app(engine), host=args.host, port=args.port, log_level="warning")
    return 0


def _proxy(args: argparse.Namespace) -> int:
    import secrets

    import uvicorn

    from openenv.core.harness.capture import CaptureProxy, Upstream, create_capture_app
    from openenv.core.harness.capture.probe import ProbeError, describe, probe_capture_level

    key = args.api_key or os.environ.get("OPENENV_LLM_API_KEY")
    try:  # probed before a port is bound: a proxy never serves at an unknown capture level
        level = probe_capture_level(
            args.llm_url, model=args.model, api_key=key, auth_header=args.auth_header
        )
    except ProbeError as exc:
        raise CliError(f"llm: {exc}") from exc
    ui.info(describe(level))
    model = args.model or level.model
    upstream = Upstream(args.llm_url, api_key=key, auth_header=args.auth_header, model=model)
    admin = args.admin_token or os.environ.get("OPENENV_CAPTURE_ADMIN_TOKEN")
    if not admin:
        admin = secrets.token_urlsafe(24)
        ui.info(f"admin token (POST /capture/sessions): {admin}")
    app = create_capture_app(CaptureProxy(upstream, level), admin_token=admin)
    ui.ok(f"capture proxy at http://{args.host}:{args.port}/v1 {level.label}")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
