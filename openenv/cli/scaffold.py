"""``openenv init NAME``: a new environment package from the templates in ``templates/env``.

The package (``<name>_env/``) is a complete, working environment: models, client, server with
its playground, manifest, README and tests, the Dockerfile and the runtime plan package
validation uses. It passes ``openenv validate`` (ours and the reference's) as generated.
"""

from __future__ import annotations

import keyword
import re
import string
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from openenv.cli.ui import CliError

TEMPLATES = files("openenv.cli") / "templates" / "env"  # package data
SUFFIX = ".tmpl"


@dataclass(frozen=True)
class EnvNames:
    """The spellings of one environment name: ``my_game``, ``my_game_env``, ``MyGame``."""

    name: str

    @property
    def package(self) -> str:
        return f"{self.name}_env"

    @property
    def cls(self) -> str:
        return "".join(part[:1].upper() + part[1:] for part in self.name.split("_"))

    @property
    def title(self) -> str:
        return self.name.replace("_", " ").title()


def names(raw: str) -> EnvNames:
    """Normalise NAME (``My-Game``, ``my_game_env``…) to ``my_game``; refuse what cannot be one."""
    name = re.sub(r"[-\s.]+", "_", raw.strip()).lower().removesuffix("_env")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or keyword.iskeyword(name):
        raise CliError(
            f"{raw!r} cannot name an environment: use letters, digits and underscores, starting "
            "with a letter (e.g. `openenv init my_game`)"
        )
    return EnvNames(name)


def scaffold(raw_name: str, parent: Path) -> Path:
    """Write ``parent/<name>_env/`` from the templates; return its path."""
    n = names(raw_name)
    target = parent / n.package
    if target.exists():
        raise CliError(f"{target} already exists: pick another NAME or --dir")
    render(target, n)
    write_package_files(target)
    return target


def render(
    target: Path, n: EnvNames, overlay: Traversable | None = None, **values: str
) -> list[Path]:
    """Write the env templates into ``target`` with ``n``'s spellings and ``values``; the
    templates of ``overlay`` (same layout, e.g. ``templates/verifiers``) replace or add to them.
    Returns the files written, in order."""
    values = {"name": n.name, "package": n.package, "Class": n.cls, "title": n.title, **values}
    chosen = dict(_templates(TEMPLATES))
    if overlay is not None:
        chosen.update(_templates(overlay))
    written = []
    for relative, template in sorted(chosen.items()):
        relative = relative.removesuffix(SUFFIX).replace(
            "tests/test_env.py", f"tests/test_{n.name}.py"
        )
        out = target / relative
        out.parent.mkdir(parents=True, exist_ok=True)
        text = string.Template(template.read_text(encoding="utf-8")).substitute(values)
        out.write_text(text, encoding="utf-8")
        written.append(out)
    return written


def write_package_files(env_dir: Path, plan: dict | None = None) -> None:
    """Generate what package validation builds and plays: the Dockerfile and the runtime plan
    (``plan``, else an episode of the env's own legal actions, played here from seed 0)."""
    from openenv.hub.package_image import write_package_dockerfile
    from openenv.hub.runtime_plan import write_plan

    write_package_dockerfile(env_dir)
    write_plan(env_dir, plan)


def _templates(folder: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    """Every ``*.tmpl`` under ``folder`` with its path relative to it, sorted."""
    found: list[tuple[str, Traversable]] = []
    for item in folder.iterdir():
        if item.is_dir():
            found += _templates(item, f"{prefix}{item.name}/")
        elif item.name.endswith(SUFFIX):
            found.append((prefix + item.name, item))
    return sorted(found, key=lambda pair: pair[0])
