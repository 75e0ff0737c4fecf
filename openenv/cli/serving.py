"""``openenv serve`` and ``openenv playground``: an environment, a catalog (of packages, or a
catalog file) or a remote server, served with its playground by :func:`openenv.cli.serve.run`."""

from __future__ import annotations

import argparse
from pathlib import Path

from openenv.cli import ui
from openenv.cli.ui import CliError


def serve(args: argparse.Namespace) -> int:
    """``openenv serve [PATH] [--catalog FILE]``: one environment, else the catalog of several."""
    from openenv.cli.serve import run
    from openenv.cli.targets import resolve
    from openenv.core.errors import EnvUnavailable

    if args.catalog or (args.path and Path(args.path).is_file()):
        return _serve_catalog_file(args)
    target = resolve(args.path)
    if target.entry is not None:
        try:
            app = target.entry.import_app()
        except EnvUnavailable as exc:
            raise CliError(str(exc)) from None
        ui.info(f"{target.entry.emoji} {target.entry.title}: playground at /web/, API at /")
        run(app, host=args.host, port=args.port, default_port=8000)
        return 0
    from openenv.web.catalog.app import create_catalog_app

    ui.info(f"Catalog of {target.where}: landing page at /, each env under /envs/<name>/")
    run(create_catalog_app(target.entries), host=args.host, port=args.port, default_port=7860)
    return 0


def _serve_catalog_file(args: argparse.Namespace) -> int:
    """``openenv serve FILE.json`` / ``openenv serve [PATH] --catalog FILE``."""
    from openenv.cli.serve import run
    from openenv.cli.targets import resolve
    from openenv.hub.catalog_file import CatalogError
    from openenv.web.catalog.app import create_catalog_app

    catalog = Path(args.catalog or args.path)
    packages = None
    if args.catalog and args.path:
        target = resolve(args.path)
        packages = [target.entry] if target.entry else target.entries
    try:
        app = create_catalog_app(packages, catalog=catalog)
    except CatalogError as exc:
        raise CliError(str(exc)) from None
    ui.info(f"Catalog file {catalog}: landing page at /, each env under /envs/<name>/")
    run(app, host=args.host, port=args.port, default_port=7860)
    return 0


def playground(args: argparse.Namespace) -> int:
    """``openenv playground TARGET``: our playground in front of a remote server or Space."""
    from openenv.cli.serve import run
    from openenv.web.remote.app import RemotePlayground
    from openenv.web.remote.probe import Remote

    try:
        remote = Remote.of(args.target, name=args.name)
    except ValueError as exc:
        raise CliError(f"{exc} (or an http(s):// URL)") from None
    ui.info(f"Playground for {remote.url}: open /web/ (each tab gets its own remote session)")
    run(RemotePlayground(remote), host=args.host, port=args.port, default_port=8000)
    return 0
