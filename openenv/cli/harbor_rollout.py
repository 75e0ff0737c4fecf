"""``openenv harbor rollout`` and ``openenv harbor install``: one rollout from the terminal.

    openenv harbor rollout --task PATH [--sandbox process|docker]
                           [--harness mini-swe-agent|codex|claude-code|opencode|gemini-cli]
                           [--llm-url URL] [--out rollout.json] [--json]

Without ``--llm-url`` the shipped TEST engine serves the rollout: the tiny model replaying a
scripted test policy (``--policy solve`` runs the task's ``solution/solve.sh`` through the bash
tool, ``--policy idle`` only lists files), so the command runs offline end to end. The capture
proxy runs in this process on loopback; the harness's API key is a session id it minted.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

from openenv.cli import ui
from openenv.cli.ui import CliError

SANDBOXES = ("process", "docker")


def add_parsers(inner: argparse._SubParsersAction) -> None:
    """Register ``rollout`` and ``install`` under ``openenv harbor``."""
    p = inner.add_parser("rollout", help="run one harness on one task, verify, print the reward")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--task", help="a task directory (or the name of a shipped task)")
    where.add_argument(
        "--dataset",
        help="a folder of tasks, or a Hub dataset org/name[@revision] (with --task-index)",
    )
    p.add_argument("--task-index", type=int, default=0, help="which task of --dataset (from 0)")
    p.add_argument("--harness", default="mini-swe-agent", help="the agent to run")
    p.add_argument("--sandbox", default="process", choices=SANDBOXES, help="where it runs")
    p.add_argument(
        "--llm-url",
        "--model-url",
        dest="llm_url",
        help="an OpenAI-compatible /v1 URL (default: the shipped scripted TEST engine)",
    )
    p.add_argument("--model", help="the model to ask for (default: the endpoint's first)")
    p.add_argument("--api-key", help="the endpoint's key (default: $OPENENV_LLM_API_KEY)")
    p.add_argument(
        "--policy",
        choices=["solve", "idle"],
        default="solve",
        help="the TEST engine's scripted policy (without --llm-url)",
    )
    p.add_argument("--timeout", type=float, help="the harness's timeout in seconds")
    p.add_argument("--out", type=Path, help="write the whole result (JSON) here")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=_rollout)
    i = inner.add_parser(
        "install", help="install a harness (mini-swe-agent from PyPI, the others from npm)"
    )
    i.add_argument(
        "harness",
        help="mini-swe-agent, codex, claude-code, opencode or gemini-cli; or harbor (the harbor "
        "package, in a Python >= 3.12 virtualenv: its task model checks our tasks)",
    )
    i.set_defaults(run=_install)


def _task(args: argparse.Namespace):  # -> HarborTask
    from openenv.core.harness.tasks import TaskError, load_task, shipped_tasks
    from openenv.core.harness.tasks.datasets import load_split

    try:
        if args.task:
            path = Path(args.task)
            shipped = shipped_tasks() / args.task
            if not path.exists() and "/" not in args.task and shipped.is_dir():
                path = shipped
            return load_task(path)
        tasks = load_split(args.dataset).tasks  # a folder, or a Hub dataset org/name
    except TaskError as exc:
        raise CliError(f"task: {exc}") from exc
    if not 0 <= args.task_index < len(tasks):
        raise CliError(f"--task-index {args.task_index}: {args.dataset} has {len(tasks)} task(s)")
    return tasks[args.task_index]


@contextlib.contextmanager
def _test_engine(task, policy: str, say: Callable[[str], None]) -> Iterator[str]:
    from openenv.core.harness.engine import Engine, create_engine_app
    from openenv.core.harness.engine.script import bash_policy
    from openenv.core.harness.loopback import serve_in_thread

    if policy == "solve":
        solve = task.path / "solution" / "solve.sh"
        if not solve.is_file():
            raise CliError(f"{task.name} has no solution/solve.sh for the TEST engine to replay")
        script = bash_policy([solve.read_text(encoding="utf-8").strip()])
    else:
        script = bash_policy(["ls -la"])
    say(f"llm       shipped TEST engine, scripted policy {policy!r} (not a model)")
    with serve_in_thread(create_engine_app(Engine(script=script))) as url:
        yield f"{url}/v1"


def _engine_check(url: str, key: str | None) -> Callable[[], str | None]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    def check() -> str | None:
        try:
            httpx.get(f"{url.rstrip('/')}/models", headers=headers, timeout=5.0)
        except httpx.HTTPError as exc:
            return f"{url} does not answer ({type(exc).__name__}: {exc})"[:300]
        return None

    return check


def _rollout(args: argparse.Namespace) -> int:
    import os

    from openenv.core.harness.capture import CaptureProxy, Upstream, create_capture_app
    from openenv.core.harness.capture.probe import ProbeError, describe, probe_capture_level
    from openenv.core.harness.harnesses import HarnessUnavailable, get_harness
    from openenv.core.harness.loopback import serve_in_thread
    from openenv.core.harness.rollout import run_rollout

    task = _task(args)
    try:
        harness = get_harness(args.harness)
    except HarnessUnavailable as exc:
        raise CliError(str(exc)) from exc
    problem = harness.problem()
    if problem:
        raise CliError(problem)
    key = args.api_key or os.environ.get("OPENENV_LLM_API_KEY")
    say: Callable[[str], None] = (lambda _: None) if args.json else ui.info
    engine = _test_engine(task, args.policy, say) if not args.llm_url else contextlib.nullcontext()
    with engine as test_url:
        url = str(args.llm_url or test_url)
        try:
            level = probe_capture_level(url, model=args.model, api_key=key)
        except ProbeError as exc:
            raise CliError(f"llm: {exc}") from exc
        say(f"llm       {url}  {describe(level)}")
        model = args.model or level.model or "model"
        proxy = CaptureProxy(Upstream(url, api_key=key, model=model), level)
        with serve_in_thread(create_capture_app(proxy)) as proxy_url:
            say(f"[{harness.name} / {args.sandbox}] task {task.name} ...")
            result = run_rollout(
                task,
                proxy=proxy,
                proxy_url=proxy_url,
                harness=harness,
                model=model,
                sandbox=args.sandbox,
                agent_timeout_s=args.timeout,
                engine_check=_engine_check(url, key),
            )
    text = result.model_dump_json(indent=2)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    if args.json:
        print(text)
        return 0 if result.status == "ok" else 1
    (ui.ok if result.status == "ok" else ui.fail)(f"  {result.summary_line()}")
    if result.reason:
        ui.info(f"  reason: {result.reason}")
    if result.status != "ok" and result.log_tail:
        ui.info("  harness log (tail):\n" + _indent(result.log_tail[-2000:]))
    if args.out:
        ui.info(f"  result written to {args.out}")
    return 0 if result.status == "ok" else 1


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _install(args: argparse.Namespace) -> int:
    from openenv.core.harness.harnesses import HarnessUnavailable, install_harness

    try:
        venv = install_harness(args.harness)
    except HarnessUnavailable as exc:
        raise CliError(str(exc)) from exc
    ui.ok(f"{args.harness} installed in {venv}")
    return 0
