"""``openenv``: scaffold, serve, validate, build and publish environments.

Here: the command line's parser (the built-in commands' arguments and help; the other commands
add their own, ``add_parser``), the entry point, and ``init``, ``validate`` and ``list``. The
built-in commands' work is done in :mod:`~openenv.cli.serving` (``serve``, ``playground``),
:mod:`~openenv.cli.publish` (``build``, ``push``) and :mod:`~openenv.cli.render` (``render``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from openenv.cli import publish, render, serving, ui
from openenv.cli.report import LEVELS
from openenv.cli.ui import CliError

DESCRIPTION = """\
Build OpenEnv environments, play them in the browser, and share them as Hugging Face Spaces.

  openenv init my_game            scaffold my_game_env/ (passes validate as generated)
  openenv serve my_game_env       serve it with its playground at /web
  openenv validate my_game_env    layout, manifest and check_env, in-process
  openenv push my_game_env --repo-id you/my-game
  openenv playground owner/space  our playground in front of any OpenEnv server or Space
  openenv render run.jsonl -o run.mp4   an episode file as a video
  openenv discover "board game"   find environments for a task (metadata only)

PATH is an environment package (a directory with openenv.yaml), or a directory of them (the
catalog). Without PATH: the current directory, else the catalog of this installation.
"""


COMMANDS = {
    "init": """\
Write NAME_env/: models, client, server with its playground, openenv.yaml, README and tests.
It passes `openenv validate` as generated.""",
    "serve": """\
Serve an environment (API at /, playground at /web/) or, for a directory of them, the catalog
(landing page at /, each environment under /envs/<name>/). PATH may be a catalog file
(`openenv catalog build`): its records are listed, the ones not installed here as unavailable.""",
    "validate": """\
In-process: package layout, openenv.yaml, the typed client, check_env on the environment and
the server app (--level static: layout and openenv.yaml only, no package code runs). With
--docker: the runtime checks run against the package's own image in a container with the
declared limits (built from its Dockerfile; removed afterwards). With
--url: health, metadata, schema, reset/state/step over /ws, error handling and seeded
determinism, against a running server. Exit code 1 when a check fails.""",
    "build": """\
Write the Space bundle (Dockerfile, README with the Hub front matter, app.py, requirements.txt,
the vendored framework and environment) and build its image when a Docker engine answers.
With --base: the base image every env package's own Dockerfile starts FROM
(openenv-env-base:latest: the framework and the packages' dependencies), which
`openenv validate PACKAGE --docker` and the reference's validator build on.""",
    "push": """\
Render the Space bundle and publish it with huggingface_hub: create the Space (docker SDK),
upload it, set variables and secrets, print its URL. The token comes from $HF_TOKEN or
`hf auth login`; it is never printed, and neither are secret values.""",
    "playground": """\
Serve the playground for a remote OpenEnv server (any: built with this framework or with the
openenv package), at http://localhost:PORT/web/. Each browser tab gets its own session on the
remote's /ws. TARGET is its base URL or a Space OWNER/NAME. A token for the remote is read from
$OPENENV_REMOTE_TOKEN (a Space's from $HF_TOKEN or `hf auth login`), never from the page.""",
    "render": """\
Turn an episode file (the playground's JSONL export, or what `client.record()` wrote) into a
video: MP4 (H.264; needs the `video` extra, PyAV) or GIF, by the suffix of --out. The pictures
are the playground's: a file that names an env installed here with its reset options (what
`client.record()` writes) is replayed on it and drawn by its own render(); otherwise each step's
observation is drawn (frames in any of our encodings, flat lists with a *_shape field, base64
images, boards, SVG, text; else its fields as text). A progress bar runs on stderr.""",
    "list": """\
List the environments and whether they import here; for a missing optional dependency, the
command that installs it.""",
}


def _command(sub: argparse._SubParsersAction, name: str, summary: str) -> argparse.ArgumentParser:
    return sub.add_parser(
        name,
        help=summary,
        description=COMMANDS[name],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="openenv", description=DESCRIPTION, formatter_class=argparse.RawTextHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    path_help = "an environment package or a directory of them (default: here)"

    p = _command(sub, "init", "scaffold a new environment package")
    p.add_argument("name", metavar="NAME", help="environment name, e.g. my_game")
    p.add_argument("--dir", default=".", help="where to create NAME_env/ (default: here)")
    p.set_defaults(run=_init)

    p = _command(sub, "serve", "run an environment (or the catalog) with its playground")
    p.add_argument("path", nargs="?", metavar="PATH", help=path_help)
    p.add_argument("--port", type=int, help="default: $PORT, else 8000 (catalog: 7860)")
    p.add_argument("--host", help="default: $HOST, else 0.0.0.0")
    p.add_argument(
        "--catalog",
        metavar="FILE",
        help="list the records of this catalog file (openenv catalog build); the ones not "
        "among PATH's environments (default: the installed ones) show as unavailable",
    )
    p.set_defaults(run=serving.serve)

    p = _command(sub, "validate", "check an environment in-process, or a server by URL")
    p.add_argument("path", nargs="?", metavar="PATH", help=path_help)
    p.add_argument("--url", help="check a running server over HTTP and /ws instead")
    p.add_argument(
        "--level",
        choices=LEVELS,
        default="semantic",
        help="static: manifest and layout only, no package code runs; runtime, semantic "
        "(default): every check",
    )
    p.add_argument(
        "--docker",
        action="store_true",
        help="build the package's Dockerfile and run the runtime checks against its container "
        "(uid 65532, read-only root, /tmp tmpfs, the declared memory, cpu, pids and network): "
        "startup time, docker diff and docker inspect become evidence; needs a Docker engine",
    )
    p.add_argument(
        "--skip-build",
        action="store_true",
        help="accepted for openenv 0.10's command lines: without --docker no image is built",
    )
    p.add_argument(
        "--evidence",
        metavar="DIR",
        help="write the evidence bundle (episodes, probes, report.json, SHA256SUMS) to DIR",
    )
    p.add_argument("--json", action="store_true", help="print the full report as JSON")
    p.add_argument(
        "--record",
        action="store_true",
        help="write the verdict to PATH/validation/verdict.json (the catalog and the "
        "playground's header show it)",
    )
    p.set_defaults(run=_validate)

    p = _command(sub, "build", "write the Space bundle and build its Docker image")
    p.add_argument("path", nargs="?", metavar="PATH", help=path_help)
    p.add_argument("--out", help="bundle directory (default: ./build/<name>-space)")
    p.add_argument("-t", "--tag", help="image tag (default: <name>-env:latest)")
    p.add_argument("--port", type=int, default=7860, help="the Space's port (default: 7860)")
    p.add_argument("--no-image", action="store_true", help="only write the bundle")
    p.add_argument(
        "--package-files",
        action="store_true",
        help="(re)write each package's Dockerfile and validation/runtime.json instead",
    )
    p.add_argument(
        "--base",
        action="store_true",
        help="build instead the base image every package's Dockerfile starts FROM "
        "(openenv-env-base:latest), for the env packages under PATH (default: installed ones)",
    )
    p.add_argument(
        "--wheels", metavar="DIR", help="with --base: install from this wheelhouse, not an index"
    )
    p.set_defaults(run=publish.build)

    p = _command(sub, "push", "publish the environment as a Hugging Face Space")
    p.add_argument("path", nargs="?", metavar="PATH", help=path_help)
    p.add_argument("--repo-id", help="OWNER/NAME of the Space (default: <you>/<env name>)")
    p.add_argument("--private", action="store_true", help="create the Space private")
    p.add_argument("--dry-run", metavar="DIR", help="write the bundle to DIR; send nothing")
    p.add_argument("--var", action="append", default=[], metavar="K=V", help="Space variable")
    p.add_argument("--secret", action="append", default=[], metavar="K=V", help="Space secret")
    p.add_argument("--port", type=int, default=7860, help="the Space's port (default: 7860)")
    p.set_defaults(run=publish.push)

    p = _command(sub, "playground", "the playground for a remote server or Space")
    p.add_argument("target", metavar="TARGET", help="http(s)://host[:port] or OWNER/NAME")
    p.add_argument("--port", type=int, help="default: $PORT, else 8000")
    p.add_argument("--host", help="default: $HOST, else 0.0.0.0")
    p.add_argument("--name", help="what the page calls the remote (default: its /metadata name)")
    p.set_defaults(run=serving.playground)

    p = _command(sub, "render", "an episode file as an MP4 or GIF video")
    p.add_argument("file", metavar="FILE", help="episode JSONL (export or recorder)")
    p.add_argument("-o", "--out", required=True, help="the video to write: NAME.mp4 or NAME.gif")
    p.add_argument(
        "--fps", type=float, default=None,
        help="frames per second (default: the frame rate of the env the file names, else 10)",
    )  # fmt: skip
    p.add_argument("--episode", type=int, help="which episode of a file of several (default 1)")
    p.set_defaults(run=render.run)

    p = _command(sub, "list", "list the environments and whether they can run here")
    p.add_argument("path", nargs="?", metavar="PATH", help=path_help)
    p.set_defaults(run=_list)

    from openenv.cli import catalog, collect, fork, harbor, importer, skills

    collect.add_parser(sub)
    harbor.add_parser(sub)
    importer.add_parser(sub)
    catalog.add_parser(sub)
    fork.add_parser(sub)
    skills.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``openenv`` console script; returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except CliError as exc:
        ui.fail(str(exc))
        return exc.code
    except KeyboardInterrupt:
        return 130


def _init(args: argparse.Namespace) -> int:
    from openenv.cli.scaffold import names, scaffold

    path = scaffold(args.name, Path(args.dir).resolve())
    n = names(args.name)
    ui.ok(f"Created {path}")
    ui.info(
        f"""
  {n.package}/models.py              {n.cls}Action, {n.cls}Observation, {n.cls}State
  {n.package}/server/environment.py  the rules (edit me)
  {n.package}/server/app.py          the server, with the playground at /web
  {n.package}/tests/                 check_env, the rules, the server

Next:
  openenv validate {path}
  openenv serve {path}       then open http://localhost:8000/web/"""
    )
    return 0


def _validate(args: argparse.Namespace) -> int:
    if args.url:
        if args.path:
            raise CliError("give PATH or --url, not both")
        if args.record:
            raise CliError("--record writes into a package: give its PATH, not --url")
        if args.docker:
            raise CliError("--docker runs a package's image: give its PATH, not --url")
        from openenv.cli.wire import validate_url
        from openenv.hub.spaces import hub_token

        token = hub_token() if ".hf.space" in args.url else None
        report = validate_url(args.url, token=token)
    else:
        from openenv.cli.targets import resolve
        from openenv.cli.validate import validate_package

        target = resolve(args.path)
        if target.entry is None:
            raise CliError(
                f"{target.where} holds several environments: validate one of them by PATH"
            )
        evidence = Path(args.evidence) if args.evidence else None
        docker = args.docker and not args.skip_build
        if args.docker and args.skip_build:
            raise CliError("--docker builds the package's image: drop --skip-build")
        if docker and args.level == "static":
            raise CliError("--level static runs no package code: --docker needs runtime or above")
        report = validate_package(
            target.entry, args.level, evidence, record=args.record, docker=docker
        )
    if getattr(args, "json", False) and report.data:
        from openenv.cli.validate import report_json

        print(report_json(report))
        return report.exit_code
    report.print()
    return report.exit_code


def _list(args: argparse.Namespace) -> int:
    from openenv.cli.targets import resolve
    from openenv.core.errors import EnvUnavailable

    target = resolve(args.path)
    entries = [target.entry] if target.entry else target.entries
    os.environ["ENABLE_WEB_INTERFACE"] = "0"  # importing is the check; skip building playgrounds
    width = max((len(e.name) for e in entries), default=4)
    for entry in entries:
        try:
            entry.import_app()
        except EnvUnavailable as exc:
            hint = f"install: {exc.install}" if exc.install else exc.reason
            ui.warn(f"{entry.name.ljust(width)}  unavailable ({exc.reason}); {hint}")
            continue
        ui.ok(f"{entry.name.ljust(width)}  available   {ui.dim(str(entry.path))}")
    if target.entry is None:  # a catalog: the documented envs that run only where hosted
        from openenv.core.hosted import hosted_only

        for hosted in hosted_only():
            ui.info(
                f"☁ {hosted.name.ljust(width)}  hosted only ({hosted.reason}); "
                "play it with `openenv playground URL` against a server hosting it"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
