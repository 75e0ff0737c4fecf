"""``openenv fork OWNER/SPACE``: duplicate a Hugging Face Space (an environment someone
published) to your account, with its variables, secrets and hardware set at creation.

The flags are ``openenv`` 0.10's (``--repo-id/-r``, ``--private``, ``--set-env/-e``,
``--set-secret/--secret/-s``, ``--hardware/-H``). The token comes from ``$HF_TOKEN`` or
``hf auth login`` and is never printed; secret values are never printed either.
"""

from __future__ import annotations

import argparse
from typing import Any

from openenv.cli import ui
from openenv.cli.ui import CliError

DEFAULT_HARDWARE = "cpu-basic"  # the Hub needs one when duplicating; the free tier

HELP = """\
Duplicate a Hugging Face Space to your account (or to --repo-id) with the Hub's duplicate API:
its files are copied by the Hub; variables (--set-env) and secrets (--set-secret) are set on
the copy, and --hardware requested (default cpu-basic, the free tier).

  openenv fork owner/source-space
  openenv fork owner/source-space --private --repo-id you/my-fork
  openenv fork owner/source-space -e MODEL_ID=org/model -s HF_TOKEN=hf_xxx -H t4-medium

Then: openenv playground you/source-space (our playground in front of it)."""


def add_parser(sub: Any) -> None:
    """Register ``fork`` on the CLI's subcommands."""
    p = sub.add_parser(
        "fork",
        help="duplicate a Hugging Face Space to your account",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("source_space", metavar="OWNER/SPACE", help="the Space to duplicate")
    p.add_argument("-r", "--repo-id", help="OWNER/NAME of the copy (default: you/<same name>)")
    p.add_argument("--private", action="store_true", help="create the copy private")
    p.add_argument(
        "-e", "--set-env", action="append", default=[], metavar="KEY=VALUE",
        help="a Space variable (public) of the copy; repeatable",
    )  # fmt: skip
    p.add_argument(
        "-s", "--set-secret", "--secret", action="append", default=[], metavar="KEY=VALUE",
        help="a Space secret of the copy; repeatable",
    )  # fmt: skip
    p.add_argument(
        "-H",
        "--hardware",
        help=f"hardware to request, e.g. t4-medium (default: {DEFAULT_HARDWARE})",
    )
    p.set_defaults(run=run)


def _pairs(items: list[str], flag: str, secret: bool) -> list[dict[str, str]]:
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            shown = "<hidden>" if secret else repr(item)
            raise CliError(f"{flag} takes KEY=VALUE, got {shown}")
        pairs.append({"key": key.strip(), "value": value.strip()})
    return pairs


def _repo_id(value: str, what: str) -> str:
    from openenv.hub.spaces import check_repo_id

    try:
        return check_repo_id(value)
    except ValueError:
        raise CliError(f"{what} must be OWNER/NAME, got {value[:200]!r}") from None


def run(args: argparse.Namespace) -> int:
    from openenv.hub.publish import PublishError, hub_api
    from openenv.hub.spaces import space_page, space_url

    source = _repo_id(args.source_space, "the Space to fork")
    target = _repo_id(args.repo_id, "--repo-id") if args.repo_id else None
    variables = _pairs(args.set_env, "--set-env", secret=False)
    secrets = _pairs(args.set_secret, "--set-secret", secret=True)
    try:
        api = hub_api()
    except PublishError as exc:
        raise CliError(str(exc)) from None
    from huggingface_hub.errors import HfHubHTTPError

    try:
        user = api.whoami().get("name")
    except HfHubHTTPError as exc:
        raise CliError(f"the Hub did not accept your token: {_status(exc)}") from None
    ui.ok(f"Authenticated as: {user}")
    options: dict[str, Any] = {"private": args.private}
    if variables:
        options["variables"] = variables
    if secrets:
        options["secrets"] = secrets
    options["hardware"] = args.hardware or DEFAULT_HARDWARE
    ui.info(f"Forking Space {source}...")
    try:
        result = _duplicate(api, source, target, **options)
    except HfHubHTTPError as exc:
        text = str(exc)
        for pair in secrets:
            if pair["value"]:
                text = text.replace(pair["value"], "<secret>")
        raise CliError(f"Fork failed: {text[:500]}") from None
    new_id = getattr(result, "repo_id", None) or str(result).rstrip("/").split("/spaces/")[-1]
    ui.ok("Space forked successfully")
    ui.info(f"Space URL: {space_page(new_id)}")
    ui.info(f"  App:     {space_url(new_id)}  (builds in a few minutes)")
    ui.info(f"  Play:    openenv playground {new_id}")
    return 0


def _duplicate(api: Any, source: str, target: str | None, **options: Any) -> Any:
    """``duplicate_repo`` of a Space (huggingface_hub >= 1.x), else ``duplicate_space``."""
    if hasattr(api, "duplicate_repo"):
        return api.duplicate_repo(
            source,
            target,
            repo_type="space",
            private=options["private"],
            space_hardware=options["hardware"],
            space_variables=options.get("variables"),
            space_secrets=options.get("secrets"),
        )
    return api.duplicate_space(source, target, **options)


def _status(exc: Any) -> str:
    response = getattr(exc, "response", None)
    return f"HTTP {response.status_code}" if response is not None else "no answer"
