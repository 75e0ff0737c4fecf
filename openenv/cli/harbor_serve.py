"""``openenv harbor serve``: Harbor tasks behind a Task API, a ``run_rollout`` MCP tool and /web.

    openenv harbor serve [--llm-url URL [--api-key K] [--model M]] [--dataset a,b]
                         [--host H] [--port P] [--max-running N]

The endpoint is probed before the server binds its port: ``[TRAIN]`` (token ids and processed
logprobs) or ``[EVAL ONLY]``; an endpoint that does not answer ends the command with the probe's
reason. Without ``--llm-url`` a rollout names its own endpoint, or runs on the scripted TEST engine
when its task has a solution. Without ``--dataset`` the shipped tasks are served.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from openenv.cli import ui
from openenv.cli.ui import CliError

SHIPPED_SPLIT = "shipped"


def add_serve_parser(inner: Any) -> None:
    """Register ``serve`` under ``openenv harbor``."""
    p = inner.add_parser(
        "serve",
        help="serve Harbor tasks: Task API, run_rollout MCP tool, /web UI",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--llm-url", help="the OpenAI-compatible /v1 URL rollouts call by default")
    p.add_argument("--model", help="the model to ask for (default: the endpoint's first)")
    p.add_argument("--api-key", help="the endpoint's key (default: $OPENENV_LLM_API_KEY)")
    p.add_argument(
        "--dataset",
        action="append",
        default=[],
        help="a task or dataset folder (or a Hub dataset org/name); a comma list is several "
        "splits (default: the shipped tasks)",
    )
    p.add_argument("--host", help="address to bind (default: $HOST, else 0.0.0.0)")
    p.add_argument("--port", type=int, help="port (default: $PORT, else 8000)")
    p.add_argument("--max-running", type=int, default=2, help="rollouts at once (default 2)")
    p.add_argument("--max-queued", type=int, default=32, help="rollouts waiting (default 32)")
    p.add_argument(
        "--hub-add",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the page's Add from the Hub (downloads to this machine; default: on when bound "
        "to loopback, off on a network address or a Space; $OPENENV_HARBOR_HUB_ADD)",
    )
    p.add_argument(
        "--own-urls",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="visitors may run on a model URL of theirs (this server probes and calls it: it "
        "reaches what this machine's network reaches; default: on when bound to loopback, off "
        "on a network address or a Space; $OPENENV_HARBOR_OWN_URLS)",
    )
    p.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    from openenv.cli.serve import run
    from openenv.harbor import Endpoints, HarborService
    from openenv.harbor.app import (
        HUB_ADD_VARIABLE,
        OWN_URLS_VARIABLE,
        create_harbor_app,
        visitors_may,
    )

    if not 1 <= args.max_running <= 64:
        raise CliError("--max-running must be between 1 and 64")
    if not 0 <= args.max_queued <= 1000:
        raise CliError("--max-queued must be between 0 and 1000")
    splits = _splits(args.dataset)  # read first: a bad dataset ends the command before a probe
    server = _probe(args)  # before the port is bound: never serve at an unknown capture level
    service = HarborService(
        splits, Endpoints(server), max_running=args.max_running, max_queued=args.max_queued
    )
    app = create_harbor_app(
        service,
        close_service=True,
        allow_hub_add=visitors_may(args.hub_add, HUB_ADD_VARIABLE, args.host),
        allow_urls=visitors_may(args.own_urls, OWN_URLS_VARIABLE, args.host),
    )
    ui.info("Task API at /harbor_env/splits, MCP tools run_rollout and capabilities, UI at /web")
    run(app, host=args.host, port=args.port)
    return 0


def _probe(args: argparse.Namespace) -> Any:
    from openenv.core.harness.capture.probe import describe
    from openenv.harbor import EndpointError, open_endpoint

    if not args.llm_url:
        ui.info(
            "llm       none (--llm-url not given): a rollout names its own endpoint, or runs "
            "on the scripted TEST engine when its task has a solution"
        )
        return None
    key = args.api_key or os.environ.get("OPENENV_LLM_API_KEY") or None
    try:
        endpoint = open_endpoint("server", args.llm_url, model=args.model, api_key=key)
    except EndpointError as exc:
        raise CliError(f"llm: {exc}") from exc
    ui.info(f"llm       {args.llm_url}  {describe(endpoint.level)}")
    if endpoint.level.rollout_type != "train":
        ui.warn("EVAL ONLY: rollouts carry the reward and the trace, no trainable tokens")
    return endpoint


def _splits(specs: list[str]) -> dict[str, list[Any]]:
    """Split name -> tasks: the datasets given, or the shipped tasks."""
    from openenv.core.harness.tasks import TaskError, load_tasks, shipped_tasks

    if not specs:
        tasks = load_tasks(shipped_tasks())
        ui.info(f"datasets  {SHIPPED_SPLIT}: {len(tasks)} shipped task(s)")
        return {SHIPPED_SPLIT: tasks}
    from openenv.core.harness.tasks.datasets import load_splits

    out: dict[str, list[Any]] = {}
    try:
        for split in load_splits(specs):
            out[split.name] = list(split.tasks)
            ui.info(f"datasets  {split.name}: {len(split.tasks)} task(s)")
            for problem in split.problems[:10]:
                ui.warn(f"  {problem.task}: {problem.reason}")
    except TaskError as exc:
        raise CliError(f"dataset: {exc}") from exc
    if not any(out.values()):
        raise CliError("no task could be read from the datasets given")
    return out
