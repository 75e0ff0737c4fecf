"""``openenv collect``: rollouts from a running environment server to ``results.jsonl`` and
``metadata.json`` (the reference 0.10's files and flags), optionally a Hugging Face dataset
(``--dataset``) and its upload (``--push-to-hub``).

The teacher is the operator's one OpenAI-compatible endpoint (``OPENENV_LLM_TEACHER_URL`` or
``OPENENV_LLM_URL``, :mod:`openenv.core.llm`; ``--llm-endpoint`` and ``--model`` override it);
``--provider scripted`` (the first legal action) and ``random`` need no model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from openenv.cli import ui
from openenv.cli.ui import CliError
from openenv.client.env_client import TOKEN_ENV_VAR
from openenv.core.llm import NOT_CONFIGURED, LLMEndpoint, llm_endpoint

HELP = """\
Play N episodes of a running environment server with a policy and write each as it ends to
DIR/results.jsonl (one episode a line: episode_id, messages, reward, done, tool_trace, metrics,
verify_metrics, artifacts, task, extra) with the run's settings in DIR/metadata.json. Episode i
resets with seed SEED+i and id PREFIX-00000i; --resume (default) skips the ids already in
results.jsonl. --dataset writes a Hugging Face dataset (parquet shards and a dataset card);
--push-to-hub uploads it (token: $HF_TOKEN or `hf auth login`). A server with an API token
takes it from $OPENENV_API_TOKEN.

ENV is family[:variant]: grid_world, openspiel:tic_tac_toe, reasoning_gym:chain_sum,
textarena:Wordle-v0 (the variant is that env's reset option; --variant-option names it for
other envs)."""

# The reset option a variant names, per env family.
VARIANT_OPTIONS = {"openspiel": "game_name", "reasoning_gym": "task_name", "textarena": "env_id"}
PROVIDERS = ("scripted", "random", "openai", "openai-compatible", "anthropic")
MAX_EPISODES = 1_000_000


def add_parser(sub: Any) -> None:
    """Register ``collect`` on the CLI's subcommands."""
    p = sub.add_parser(
        "collect",
        help="collect rollouts from a running server (results.jsonl, a HF dataset)",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("env", metavar="ENV", help="family[:variant], e.g. openspiel:tic_tac_toe")
    p.add_argument("--base-url", required=True, help="the env server's URL (local or a Space)")
    p.add_argument("-o", "--output-dir", required=True, help="where results.jsonl goes")
    p.add_argument("-n", "--num-episodes", type=int, default=10, help="episodes (default 10)")
    p.add_argument("--max-turns", type=int, default=9, help="steps per episode at most (9)")
    p.add_argument("--episode-id-prefix", default="ep", help="episode ids: PREFIX-000000…")
    p.add_argument(
        "--resume",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="skip episodes already in results.jsonl (--no-resume sets the old file aside)",
    )
    p.add_argument("--provider", default="scripted", choices=PROVIDERS, help="the policy")
    p.add_argument("--model", help="the teacher's model (default: $OPENENV_LLM_MODEL)")
    p.add_argument("--llm-endpoint", help="an OpenAI-compatible server, e.g. http://host:8000")
    p.add_argument("--llm-port", type=int, help="port added to --llm-endpoint when it has none")
    p.add_argument("--temperature", type=float, default=0.2, help="teacher sampling (0.2)")
    p.add_argument("--max-tokens", type=int, default=200, help="teacher reply tokens (200)")
    p.add_argument("--system-prompt", help="the teacher's instructions (system message)")
    p.add_argument(
        "--keep-losses", action="store_true", help="keep episodes with a negative return"
    )
    p.add_argument("--seed", type=int, default=0, help="episode i resets with SEED+i (0)")
    p.add_argument("--dataset-config", help="JSON config for envs that take one (reasoning_gym)")
    p.add_argument("--reset-options", help="JSON object of extra reset options")
    p.add_argument("--variant-option", help="the reset option the variant sets (other envs)")
    p.add_argument("--dataset", metavar="DIR", help="also write a Hugging Face dataset to DIR")
    p.add_argument("-H", "--push-to-hub", metavar="REPO_ID", help="upload the dataset there")
    p.add_argument("--private", action="store_true", help="create the Hub dataset private")
    p.add_argument("--commit-message", help="the Hub commit's message")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The ``collect`` command; 0 when at least one episode is on disk and none failed."""
    from openenv.datasets.collector import CollectSettings, collect
    from openenv.datasets.results import ResultsFile

    if not 0 < args.num_episodes <= MAX_EPISODES:
        raise CliError(f"--num-episodes must be between 1 and {MAX_EPISODES}")
    if args.max_turns < 1:
        raise CliError("--max-turns must be at least 1")
    policy, teacher = _policy(args)
    settings = CollectSettings(
        base_url=args.base_url.rstrip("/"),
        env=args.env,
        num_episodes=args.num_episodes,
        max_turns=args.max_turns,
        episode_id_prefix=args.episode_id_prefix,
        reset_options=_reset_options(args),
        seed=args.seed,
        keep_losses=args.keep_losses,
        system_prompt=args.system_prompt,
        api_token=os.environ.get(TOKEN_ENV_VAR) or None,
    )
    results = ResultsFile(args.output_dir)
    results.write_metadata(_metadata(args, settings, policy.name, teacher))
    ui.info(f"Env server: {settings.base_url}")
    ui.info(f"Teacher: {policy.name}" + (f"/{teacher.model}" if teacher else ""))
    ui.info(f"Output: {results.output_dir}")
    summary = asyncio.run(_collect_with_bar(collect, settings, policy, results, args.resume))
    for failure in summary.failures[:10]:
        ui.warn(f"failed {failure}")
    (ui.fail if summary.num_failed else ui.ok)(
        f"collected={summary.num_collected} skipped={summary.num_skipped} "
        f"dropped={summary.num_dropped} failed={summary.num_failed} "
        f"avg_reward={summary.avg_reward:.3f} success_rate={summary.success_rate:.0%}"
    )
    if args.dataset or args.push_to_hub:
        _dataset_and_push(args, results)
    return 1 if summary.num_failed else 0


async def _collect_with_bar(collect: Any, settings: Any, policy: Any, results: Any, resume: bool):
    from tqdm import tqdm

    with tqdm(total=settings.num_episodes, desc="Collecting", unit="ep") as bar:

        def tick(summary: Any) -> None:
            bar.update(1)
            bar.set_postfix(collected=summary.num_collected, reward=f"{summary.avg_reward:.2f}")

        return await collect(settings, policy, results, resume=resume, on_episode=tick)


def _policy(args: argparse.Namespace) -> tuple[Any, LLMEndpoint | None]:
    from openenv.datasets.policies import RandomPolicy, ScriptedPolicy, TeacherPolicy

    if args.llm_endpoint is None and args.provider == "scripted":
        return ScriptedPolicy(), None
    if args.llm_endpoint is None and args.provider == "random":
        return RandomPolicy(args.seed), None
    if args.provider == "anthropic":
        raise CliError(
            "the teacher is an OpenAI-compatible endpoint: point --llm-endpoint (or "
            "OPENENV_LLM_URL) at one that serves the model (an Anthropic-compatible proxy works)"
        )
    endpoint = teacher_endpoint(args.llm_endpoint, args.llm_port, args.model)
    return TeacherPolicy(endpoint, args.temperature, args.max_tokens), endpoint


def teacher_endpoint(url: str | None, port: int | None, model: str | None) -> LLMEndpoint:
    """``--llm-endpoint`` (``/v1`` added when it has no path, ``port`` when it has none), else
    the operator's teacher setting; ``model`` overrides the model. CliError when neither."""
    configured = llm_endpoint("teacher")
    if url is None:
        if configured is None:
            raise CliError(f"--provider needs a model endpoint: {NOT_CONFIGURED} or --llm-endpoint")
        base, key, timeout = configured.base_url, configured.api_key, configured.timeout_s
    else:
        base, timeout = _endpoint_url(url, port), 60.0
        key = configured.api_key if configured else os.environ.get("OPENAI_API_KEY")
    chosen = model or (configured.model if configured else None)
    if not chosen:
        raise CliError("--model is required with --llm-endpoint (or set OPENENV_LLM_MODEL)")
    return LLMEndpoint(base_url=base, model=chosen, api_key=key, timeout_s=timeout)


def _endpoint_url(url: str, port: int | None) -> str:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    netloc = parts.netloc
    if port is not None and parts.port is None:
        netloc = f"{netloc}:{port}"
    path = parts.path if parts.path.strip("/") else "/v1"
    return urlunsplit((parts.scheme, netloc, path.rstrip("/"), "", ""))


def _reset_options(args: argparse.Namespace) -> dict[str, Any]:
    options = _json_object(args.reset_options, "--reset-options") if args.reset_options else {}
    family, _, variant = args.env.partition(":")
    if variant:
        name = args.variant_option or VARIANT_OPTIONS.get(family)
        if name is None:
            raise CliError(
                f"{family!r} has no known variant option: name it with --variant-option "
                "(the reset option the variant sets), or drop ':variant'"
            )
        options[name] = variant
    if args.dataset_config:
        config = _json_object(args.dataset_config, "--dataset-config")
        options["task_config" if family == "reasoning_gym" else "dataset_config"] = config
    return options


def _json_object(text: str, flag: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"{flag} must be valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise CliError(f"{flag} must be a JSON object")
    return value


def _metadata(
    args: argparse.Namespace, settings: Any, provider: str, teacher: LLMEndpoint | None
) -> dict[str, Any]:
    server = _server_metadata(settings.base_url, settings.api_token)
    return {
        "env": args.env,
        "env_base_url": settings.base_url,
        "provider": provider,
        "model": teacher.model if teacher else args.model,
        "llm_endpoint": teacher.base_url if teacher else None,
        "llm_port": args.llm_port if teacher else None,
        "num_episodes_requested": args.num_episodes,
        "temperature": args.temperature,
        "keep_losses": args.keep_losses,
        "env_name": server.get("name"),
        "env_version": server.get("version"),
        "max_turns": args.max_turns,
        "episode_id_prefix": args.episode_id_prefix,
        "seed": args.seed,
        "reset_options": settings.reset_options,
    }


def _server_metadata(base_url: str, token: str | None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.get(f"{base_url}/metadata", headers=headers, timeout=30)
        data = response.json() if response.status_code == 200 else {}
    except (httpx.HTTPError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _dataset_and_push(args: argparse.Namespace, results: Any) -> None:
    from openenv.datasets.hf_dataset import write_dataset

    records = list(results.records())
    metadata = results.read_metadata()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.dataset) if args.dataset else Path(scratch) / "dataset"
        try:
            write_dataset(records, folder, metadata)
        except ImportError as exc:
            raise CliError(f"--dataset needs pyarrow: pip install pyarrow ({exc})") from None
        for raw in (results.metadata_path, results.results_path):  # the reference's files too
            shutil.copyfile(raw, folder / raw.name)
        if args.dataset:
            ui.ok(f"Dataset of {len(records)} episode(s) at {folder}")
        if args.push_to_hub:
            _push(folder, args)


def _push(folder: Path, args: argparse.Namespace) -> None:
    from huggingface_hub.errors import HfHubHTTPError

    from openenv.datasets.hf_dataset import push_dataset

    try:
        url = push_dataset(
            folder, args.push_to_hub, private=args.private, commit_message=args.commit_message
        )
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise CliError(f"could not push to {args.push_to_hub}: {exc}") from None
    ui.ok(f"Dataset at: {url}")
