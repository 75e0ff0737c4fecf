"""``openenv catalog build|inspect`` and ``openenv discover QUERY``: the commands over catalog
files (:mod:`openenv.hub.catalog_file`: the format, building one from a Git revision, reading
and searching it).

``openenv discover QUERY`` searches a catalog file (``--catalog``, or ``$OPENENV_CATALOG``),
else the installed environments; ``--hub`` asks the Hugging Face Hub for Spaces tagged
``openenv`` instead.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openenv.cli import ui
from openenv.cli.ui import CliError
from openenv.hub.catalog_file import (
    CATALOG_ENV_VAR,
    FILTERS,
    FOOTER,
    CatalogError,
    build_catalog,
    write_catalog,
)
from openenv.hub.catalog_read import (
    installed_records,
    load_catalog,
    parse_filters,
    record_json,
    resolve_entry,
    search,
)

BUILD_HELP = """\
Write a catalog file from the environment packages committed under ROOT (default envs/) of a
Git repository at one revision: metadata only, no package code runs, uncommitted files are not
read. The file is the openenv 0.10 catalog profile (0.1-draft), so either CLI reads it. Exit
code 1 when a package's metadata is unusable (the file is still written, marked incomplete).

  openenv catalog build --repository . --repository-uri https://github.com/you/envs.git \\
      --publisher example.org --output catalog.json"""

INSPECT_HELP = """\
Print one record of a catalog file as JSON: IDENTIFIER is its urn:air:… identifier (as
`openenv discover` prints it) or the environment's exact name."""

DISCOVER_HELP = """\
Find environments for a task by their metadata, before installing or running anything: the
records of a catalog file (--catalog, default $OPENENV_CATALOG), else the environments installed
here, ranked by the share of QUERY's words in their name, description, tags and example
queries. --hub searches the Hugging Face Hub's Spaces tagged openenv instead."""


def _said(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A command whose catalog errors the CLI prints (``✗ Catalog error: …``, exit 1)."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except CatalogError as exc:
            raise CliError(str(exc)) from None

    return run


# -- the parser ----------------------------------------------------------------------------


def add_parser(sub: Any) -> None:
    """Register ``catalog build|inspect`` and ``discover`` on the CLI's subcommands."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(
        "catalog",
        help="build or inspect a metadata-only catalog file",
        description="Build and inspect versioned, metadata-only catalogs of environments.",
    )
    verbs = p.add_subparsers(dest="catalog_command", metavar="VERB", required=True)
    b = verbs.add_parser(
        "build", help="a catalog file from a Git revision", description=BUILD_HELP,
        formatter_class=fmt,
    )  # fmt: skip
    b.add_argument("--repository", type=Path, default=Path("."), help="Git repository (default: .)")
    b.add_argument(
        "--repository-uri", required=True,
        help="its public GitHub clone URI, https://github.com/OWNER/NAME.git",
    )  # fmt: skip
    b.add_argument("--publisher", required=True, help="publishing authority, a DNS name")
    b.add_argument("--output", type=Path, required=True, help="the catalog file to write")
    b.add_argument("--revision", default="HEAD", help="commit or ref to read (default: HEAD)")
    b.add_argument("--root", default="envs", help="folder holding the packages (default: envs)")
    b.add_argument(
        "--namespace", default="openenv", help="publisher's namespace (default: openenv)"
    )
    b.set_defaults(run=_build)

    i = verbs.add_parser(
        "inspect", help="print one record of a catalog file", description=INSPECT_HELP,
        formatter_class=fmt,
    )  # fmt: skip
    i.add_argument("identifier", metavar="IDENTIFIER", help="urn:air:… identifier or exact name")
    i.add_argument("--catalog", type=Path, required=True, help="the catalog file")
    i.set_defaults(run=_inspect)

    d = sub.add_parser(
        "discover", help="find environments for a task (metadata only)",
        description=DISCOVER_HELP, formatter_class=fmt,
    )  # fmt: skip
    d.add_argument("query", nargs="?", default="", metavar="QUERY", help="the task, in words")
    d.add_argument("--catalog", type=Path, help=f"catalog file (default: ${CATALOG_ENV_VAR})")
    d.add_argument("--limit", type=int, default=20, help="most results, 1-1000 (default: 20)")
    d.add_argument(
        "--filter", action="append", default=[], metavar="FIELD=VALUE",
        help=f"exact match on a field ({', '.join(FILTERS)}); repeatable",
    )  # fmt: skip
    d.add_argument("--json", action="store_true", help="print the full records as JSON")
    d.add_argument("--hub", action="store_true", help="search Spaces on the Hugging Face Hub")
    d.set_defaults(run=_discover)


# -- the commands --------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _plain(value: Any) -> str:
    """A catalog's text for the terminal: no control characters (no escape sequences)."""
    return _CONTROL.sub("?", str(value))


@_said
def _build(args: argparse.Namespace) -> int:
    snapshot = build_catalog(
        args.repository.resolve(),
        repository_uri=args.repository_uri,
        publisher=args.publisher,
        namespace=args.namespace,
        revision=args.revision,
        root=args.root,
    )
    write_catalog(snapshot, args.output)
    ui.info(
        f"{len(snapshot['entries'])} records, snapshot {snapshot['digest']}, "
        f"complete={str(snapshot['complete']).lower()}"
    )
    for issue in snapshot["issues"]:
        ui.info(f"{issue['severity']}: {issue['path']}: {issue['message']}")
    return 0 if snapshot["complete"] else 1


@_said
def _inspect(args: argparse.Namespace) -> int:
    entry = resolve_entry(load_catalog(args.catalog), args.identifier)
    print(json.dumps(record_json(entry), indent=2, ensure_ascii=False))
    return 0


@_said
def _discover(args: argparse.Namespace) -> int:
    filters = parse_filters(args.filter)
    if args.hub:
        return _discover_hub(args)
    path = args.catalog or (
        Path(os.environ[CATALOG_ENV_VAR]) if os.environ.get(CATALOG_ENV_VAR) else None
    )
    snapshot = load_catalog(path) if path else None
    entries = snapshot["entries"] if snapshot else installed_records()
    matches = search(entries, args.query, filters, args.limit)
    if args.json:
        results = [{**record_json(e), "score": score} for e, score in matches]
        body = {"results": results, "snapshot": snapshot["digest"] if snapshot else None,
                "metadataOnly": True}  # fmt: skip
        print(json.dumps(body, indent=2, ensure_ascii=False))
        return 0
    for entry, _ in matches:
        card, source = entry["data"], entry["data"]["source"]
        ui.info(_plain(f"{entry['displayName']}: {card['description']}"))
        if snapshot:
            ui.info(_plain(f"  source: {source['uri']}"))
            ui.info(_plain(f"  path: {source['path']}"))
            ui.info(_plain(f"  revision: {source['revision']}"))
            ui.info(
                _plain(
                    f"  license: {card.get('license')}; "
                    f"artifact: {card.get('artifact_availability')}"
                )
            )
            ui.info(_plain(f"  identifier: {entry['identifier']}"))
        else:
            ui.info(f"  path: {source['path']}")
            ui.info(f"  serve: openenv serve {entry['identifier']}")
    if not matches:
        where = path or "the installed environments"
        ui.info(_plain(f"No environment in {where} matches {args.query!r}."))
    ui.info(FOOTER)
    return 0


def _discover_hub(args: argparse.Namespace) -> int:
    """Spaces tagged ``openenv`` whose name or card matches QUERY, from the Hub's search."""
    if args.catalog:
        raise CatalogError("give --catalog or --hub, not both")
    if not 1 <= args.limit <= 1000:
        raise CatalogError(f"--limit must be between 1 and 1000, got {args.limit}")
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    from openenv.hub.spaces import hub_token, space_page, space_url

    api = HfApi(token=hub_token() or False)
    try:
        spaces = list(
            api.list_spaces(search=args.query or None, filter="openenv", limit=args.limit)
        )
    except (HfHubHTTPError, OSError) as exc:
        raise CatalogError(f"the Hub's search failed: {str(exc)[:300]}") from None
    results = [
        {"id": s.id, "page": space_page(s.id), "app": space_url(s.id), "likes": s.likes or 0,
         "tags": list(s.tags or [])}
        for s in spaces
    ]  # fmt: skip
    if args.json:
        print(json.dumps({"results": results, "metadataOnly": True}, indent=2))
        return 0
    for r in results:
        ui.info(_plain(f"{r['id']}: {r['page']}"))
        ui.info(f"  app: {r['app']}  likes: {r['likes']}")
        ui.info(f"  play: openenv playground {r['id']}   fork: openenv fork {r['id']}")
    if not results:
        ui.info(f"No Space tagged openenv matches {args.query!r}.")
    ui.info(FOOTER)
    return 0
