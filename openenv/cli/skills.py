"""``openenv skills preview|add``: a SKILL.md telling AI assistants (Claude, Codex, Cursor,
OpenCode) how to use this CLI and the environments installed here.

The text is generated, not written by hand: the command list is read from this CLI's own parser
(so a new verb shows up in it) and the environment list from the installed environments'
``openenv.yaml`` (name, description, tags, typed client). ``add`` writes it where ``openenv`` 0.10
does: ``.agents/skills/openenv-cli/SKILL.md`` in the project (``--global``: under ``~``), with a
relative symlink from each assistant's skills folder chosen (``.claude/skills/openenv-cli`` …),
or only into ``--dest DIR``. An existing skill is kept unless ``--force``.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path
from typing import Any

from openenv.cli import ui
from openenv.cli.ui import CliError

SKILL_ID = "openenv-cli"
CENTRAL_LOCAL = Path(".agents/skills")
CENTRAL_GLOBAL = Path("~/.agents/skills")
AGENTS = ("claude", "codex", "cursor", "opencode")  # the order symlinks are made in
LOCAL_DIRS = {
    "claude": Path(".claude/skills"),
    "codex": Path(".codex/skills"),
    "cursor": Path(".cursor/skills"),
    "opencode": Path(".opencode/skills"),
}
GLOBAL_DIRS = {
    "claude": Path("~/.claude/skills"),
    "codex": Path("~/.codex/skills"),
    "cursor": Path("~/.cursor/skills"),
    "opencode": Path("~/.config/opencode/skills"),
}
MAX_ENVS = 200  # a SKILL.md is read into an assistant's context: keep it short
MAX_LINE = 160

HELP = """\
preview: print the SKILL.md this installation generates. add: install it for AI assistants:
.agents/skills/openenv-cli/SKILL.md in this project (or under ~ with --global), linked from
each assistant's skills folder picked (--claude, --codex, --cursor, --opencode), or only into
--dest DIR. Re-run with --force to regenerate it."""


def add_parser(sub: Any) -> None:
    """Register ``skills preview|add`` on the CLI's subcommands."""
    p = sub.add_parser(
        "skills",
        help="a SKILL.md about this CLI for AI assistants",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = p.add_subparsers(dest="skills_command", metavar="VERB", required=True)
    pv = verbs.add_parser("preview", help="print the generated SKILL.md")
    pv.set_defaults(run=_preview)
    a = verbs.add_parser("add", help="install the skill for AI assistants")
    for agent in AGENTS:
        name = {"opencode": "OpenCode", "codex": "Codex"}.get(agent, agent.title())
        a.add_argument(f"--{agent}", action="store_true", help=f"link it for {name}")
    a.add_argument(
        "-g", "--global", dest="global_", action="store_true",
        help="install for your user (~) instead of this project",
    )  # fmt: skip
    a.add_argument("--dest", type=Path, help="install only into this skills folder")
    a.add_argument("--force", action="store_true", help="replace a skill already there")
    a.set_defaults(run=_add)


# -- the text ------------------------------------------------------------------------------


def _clip(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"


def _commands() -> list[tuple[str, str]]:
    """(``openenv VERB ARGS``, summary) of every command of this CLI, from its parser."""
    from openenv.cli.main import _parser

    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    summaries = {action.dest: action.help or "" for action in sub._choices_actions}
    rows = []
    for name, command in sub.choices.items():
        nested = [a for a in command._actions if isinstance(a, argparse._SubParsersAction)]
        if nested:
            helps = {action.dest: action.help or "" for action in nested[0]._choices_actions}
            for verb, verb_parser in nested[0].choices.items():
                rows.append((f"openenv {name} {verb}{_positionals(verb_parser)}", helps[verb]))
            continue
        rows.append((f"openenv {name}{_positionals(command)}", summaries.get(name, "")))
    return rows


def _positionals(parser: argparse.ArgumentParser) -> str:
    parts = []
    for action in parser._actions:
        if action.option_strings or isinstance(action, argparse._SubParsersAction):
            continue
        meta = action.metavar or action.dest.upper()
        parts.append(f"[{meta}]" if action.nargs == "?" else str(meta))
    return "".join(f" {p}" for p in parts)


def _environments() -> list[Any]:
    from openenv.core.registry import installed

    try:
        return sorted(installed(), key=lambda e: e.name)
    except Exception:  # a broken package must not stop the skill being written
        return []


def build_skill_md() -> str:
    """The SKILL.md of this installation (front matter, commands, environments, a client)."""
    from openenv import __version__

    envs = _environments()
    lines = [
        "---",
        f"name: {SKILL_ID}",
        'description: "OpenEnv CLI (`openenv`): scaffold, serve, validate, build, push, fork,'
        " discover and play reinforcement-learning environments (OpenEnv servers with a"
        ' browser playground)."',
        "---",
        "",
        'Install: `pip install "openenv-playground"` (an env\'s extras:'
        ' `pip install "openenv-playground[<extra>]"`).',
        "",
        "The OpenEnv CLI command `openenv` is available.",
        "Use `openenv --help` to view available commands.",
        "",
        f"Generated with `openenv-playground v{__version__}`. "
        "Run `openenv skills add --force` to regenerate.",
        "",
        "## Commands",
        "",
    ]
    lines += [f"- `{usage}` — {_clip(summary)}" for usage, summary in _commands()]
    lines += [
        "",
        "Use `openenv <command> --help` for every flag. PATH is an environment package (a folder",
        "with `openenv.yaml`) or a folder of them; an installed environment can be named instead.",
        "",
        "## Working with an environment",
        "",
        '- Find one for a task: `openenv discover "<task words>"` (installed environments), or',
        '  `openenv discover "<task>" --catalog catalog.json`, or `--hub` for Spaces.',
        "- Check it before trusting it: `openenv validate PATH` (exit code 1 when a check fails).",
        "- Run it: `openenv serve NAME`; API at http://localhost:8000/, playground at /web/.",
        "- A new one: `openenv init my_game`, edit `my_game_env/server/environment.py`, validate.",
        "- Publish: `openenv push PATH --repo-id you/name`;",
        "  copy someone's Space: `openenv fork OWNER/SPACE`.",
    ]
    if envs:
        example = next((e for e in envs if e.name == "grid_world"), envs[0])
        lines += [
            "",
            "## From Python",
            "",
            "```python",
            "from openenv import AutoEnv",
            "",
            f'env = AutoEnv.from_env("{example.name}").sync()  # starts it locally, typed client',
            "result = env.reset(seed=0)",
            "print(result.observation)",
            "env.close()",
            "```",
            "",
            f"Typed client of `{example.name}`: `{example.client_import}` "
            f'(`{example.client_name}(base_url="http://localhost:8000")`).',
            "",
            f"## Environments installed here ({len(envs)})",
            "",
        ]
        for env in envs[:MAX_ENVS]:
            tags = f" [{', '.join(env.tags)}]" if env.tags else ""
            lines.append(f"- `{env.name}` — {_clip(env.description or env.title)}{_clip(tags)}")
        if len(envs) > MAX_ENVS:
            lines.append(f"- … and {len(envs) - MAX_ENVS} more: `openenv list`")
    return "\n".join(lines).strip() + "\n"


# -- installing ----------------------------------------------------------------------------


def _make_room(path: Path, force: bool) -> None:
    if not (path.exists() or path.is_symlink()):
        return
    if not force:
        raise CliError(f"Skill already exists at {path}. Re-run with --force to overwrite.")
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def install_to(skills_dir: Path, text: str, force: bool) -> Path:
    """Write ``skills_dir/openenv-cli/SKILL.md``; the skill's folder."""
    skills_dir = skills_dir.expanduser().resolve()
    dest = skills_dir / SKILL_ID
    try:
        skills_dir.mkdir(parents=True, exist_ok=True)
        _make_room(dest, force)
        dest.mkdir()
        (dest / "SKILL.md").write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {dest}: {exc.strerror or exc}") from None
    return dest


def link_from(agent_dir: Path, skill: Path, force: bool) -> Path:
    """A relative symlink ``agent_dir/openenv-cli`` → the skill's folder."""
    agent_dir = agent_dir.expanduser().resolve()
    link = agent_dir / SKILL_ID
    try:
        agent_dir.mkdir(parents=True, exist_ok=True)
        _make_room(link, force)
        link.symlink_to(os.path.relpath(skill, agent_dir))
    except OSError as exc:
        raise CliError(f"cannot link {link}: {exc.strerror or exc}") from None
    return link


def _preview(args: argparse.Namespace) -> int:
    print(build_skill_md())
    return 0


def _add(args: argparse.Namespace) -> int:
    chosen = [agent for agent in AGENTS if getattr(args, agent)]
    text = build_skill_md()
    if args.dest is not None:
        if chosen or args.global_:
            raise CliError(
                "--dest cannot be combined with --claude, --codex, --cursor, --opencode, "
                "or --global."
            )
        ui.info(f"Installed '{SKILL_ID}' to {install_to(args.dest, text, args.force)}")
        return 0
    central = install_to(CENTRAL_GLOBAL if args.global_ else CENTRAL_LOCAL, text, args.force)
    ui.info(f"Installed '{SKILL_ID}' to central location: {central}")
    dirs = GLOBAL_DIRS if args.global_ else LOCAL_DIRS
    for agent in chosen:
        ui.info(f"Created symlink: {link_from(dirs[agent], central, args.force)}")
    return 0
