"""``openenv build`` and ``openenv push``: an environment (or a catalog) as a Space bundle, its
Docker image, the shared base image of the env packages' images, and the published Space (or,
with ``--dry-run``, what would be published)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from openenv.cli import ui
from openenv.cli.ui import CliError

if TYPE_CHECKING:
    from openenv.cli.targets import Target


def _default_out(name: str) -> Path:
    return Path("build") / f"{name.lower().replace(' ', '-').replace('_', '-')}-space"


def build(args: argparse.Namespace) -> int:
    """``openenv build``: the Space bundle and its image (or, with ``--base``, the base image)."""
    from openenv.cli.build import build_image, default_tag, write_bundle
    from openenv.cli.targets import resolve

    if args.base:
        return _build_base(args)
    if args.wheels:
        raise CliError("--wheels goes with --base (the base image's wheelhouse)")
    target = resolve(args.path)
    if args.package_files:
        from openenv.cli.build import write_package_files

        write_package_files(target)
        return 0
    name = target.entry.name if target.entry else "catalog"
    bundle = write_bundle(target, Path(args.out or _default_out(name)), port=args.port)
    if args.no_image:
        return 0
    build_image(bundle, args.tag or default_tag(bundle))
    return 0


def _build_base(args: argparse.Namespace) -> int:
    """``openenv build --base``: the shared base image of the env packages' images."""
    from openenv.cli.build import build_image
    from openenv.core.registry import MANIFEST, discover, installed, read_package
    from openenv.hub.bundle import BundleError
    from openenv.hub.package_image import BASE_IMAGE, base_bundle

    if args.package_files:
        raise CliError("--base and --package-files are two different builds: give one")
    wheels = Path(args.wheels) if args.wheels else None
    if wheels is not None and not wheels.is_dir():
        raise CliError(f"--wheels {args.wheels}: no such directory")
    if not args.path:
        entries = installed()
    elif (Path(args.path) / MANIFEST).is_file():
        entries = [read_package(Path(args.path))]
    else:
        entries = discover(Path(args.path))
    try:
        bundle = base_bundle(entries, Path(args.out or "build/openenv-env-base"), wheels=wheels)
    except BundleError as exc:
        raise CliError(str(exc)) from None
    ui.ok(f"Base image context for {len(entries)} env packages: {bundle.path}")
    if not args.no_image:
        build_image(bundle, args.tag or BASE_IMAGE)
    return 0


def push(args: argparse.Namespace) -> int:
    """``openenv push``: publish the Space bundle to the Hugging Face Hub (or ``--dry-run``)."""
    from openenv.cli.build import write_bundle
    from openenv.cli.targets import resolve
    from openenv.hub.publish import PublishError, default_repo_id, hub_api, parse_pairs, publish

    target = resolve(args.path)
    name = target.entry.name if target.entry else "openenv-playground"
    try:
        variables = parse_pairs(args.var, "--var")
        secrets = parse_pairs(args.secret, "--secret")
        if args.dry_run:
            return _dry_run(target, args, variables, secrets)
        api = hub_api()
        repo_id = args.repo_id or default_repo_id(api, name)
        with tempfile.TemporaryDirectory(prefix="openenv-space-") as tmp:
            bundle = write_bundle(target, Path(tmp) / "space", port=args.port, repo_id=repo_id)
            with ui.step(f"Publishing to the Hugging Face Hub as {repo_id}"):
                done = publish(
                    bundle.path,
                    repo_id,
                    api=api,
                    private=args.private,
                    variables=variables,
                    secrets=secrets,
                    say=lambda line: ui.info(ui.dim(f"  {line}")),
                )
    except PublishError as exc:
        raise CliError(str(exc)) from None
    ui.ok(f"Published {done.repo_id}")
    ui.info(f"  Space:      {done.page}")
    ui.info(f"  App:        {done.app_url}  (builds in a few minutes)")
    ui.info(f'  Connect:    Env.from_env("{done.repo_id}")')
    return 0


def _dry_run(
    target: Target, args: argparse.Namespace, variables: dict[str, str], secrets: dict[str, str]
) -> int:
    from openenv.cli.build import write_bundle

    repo_id = args.repo_id or "OWNER/NAME"
    bundle = write_bundle(target, Path(args.dry_run), port=args.port, repo_id=args.repo_id)
    visibility = "private" if args.private else "public"
    ui.info(f"Dry run: nothing was sent. `openenv push` would create the {visibility} Space")
    ui.info(f"  {repo_id} (docker SDK) and upload the {len(bundle.files())} files of {bundle.path}")
    for key in variables:
        ui.info(f"  and set the variable {key}")
    for key in secrets:
        ui.info(f"  and set the secret {key}")
    return 0
