"""Space bundles: the Docker build context that is also the Space repository.

A bundle vendors the framework as it is installed (``openenv/``, with ``openenv/web/`` and its
``assets/`` inside) and the environment package(s) under ``envs/``, because a Space cannot
``pip install`` from this repository. Its ``requirements.txt`` lists the installed
distribution's dependencies (plus each environment's extra), pinned to the versions installed
here, those the tests ran with. Every generated file is rendered from the templates of
``openenv.spaces`` (``spaces/templates/`` in the repository) by :func:`render_template`. It
works the same from a checkout and from an installed wheel.

(Over 400 lines: rendering, pinning and reading back a bundle are one format, kept in one
place so what is written and what the tests read back cannot drift apart.)
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import re
import shutil
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from openenv.core.extras import DISTRIBUTION
from openenv.core.registry import EnvPackage, discover, read_package

DEFAULT_SPACE_PORT = 7860
MARKER = ".openenv-bundle.json"
SHORT_DESCRIPTION_MAX = 60  # the Hub's limit
HUB_COLORS = ("red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray")
_IGNORE = shutil.ignore_patterns(
    "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache", ".mypy_cache", "*.egg-info", ".git"
)


class BundleError(Exception):
    """The bundle cannot be written; the message says how to fix it."""


@dataclass(frozen=True)
class Bundle:
    """A rendered Space bundle on disk."""

    path: Path
    kind: Literal["env", "catalog"]
    name: str
    front_matter: dict[str, Any]
    requirements: list[str] = field(default_factory=list)

    @property
    def requirements_hash(self) -> str:
        return hashlib.sha256("\n".join(self.requirements).encode()).hexdigest()[:16]

    def files(self) -> list[str]:
        """Every file of the bundle, relative and sorted (what an upload sends)."""
        return sorted(
            p.relative_to(self.path).as_posix()
            for p in self.path.rglob("*")
            if p.is_file() and p.name != MARKER
        )


# -- the framework as installed ------------------------------------------------------------

# The packages a Space needs, each copied to where an installed wheel puts it.
VENDORED = {
    "openenv": "openenv",
    "openenv.web": "openenv/web",
    "openenv.web.assets": "openenv/web/assets",
}


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise BundleError(f"{name} is not importable here: install {DISTRIBUTION}")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def render_template(template: str, /, **values: Any) -> str:
    """Fill the Space template ``template``; a placeholder without a value is an error."""
    text = (files("openenv.spaces") / "templates" / template).read_text(encoding="utf-8")
    try:
        return string.Template(text).substitute({k: str(v) for k, v in values.items()})
    except KeyError as exc:
        raise BundleError(f"template {template} needs a value for {exc}") from None


# -- requirements ---------------------------------------------------------------------------


def _project_dependencies() -> tuple[list[str], dict[str, list[str]]]:
    """(core dependencies, optional extras) of the installed distribution."""
    try:
        raw = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        raise BundleError(
            f"Space bundles pin the dependencies of the installed {DISTRIBUTION}: install it "
            "(pip install openenv-playground, or pip install -e . in a checkout)"
        ) from None
    core: list[str] = []
    optional: dict[str, list[str]] = {}
    for line in raw:
        req = Requirement(line)
        extra = _extra_of(req)
        if extra is None:
            core.append(line)
        else:
            req.marker = None
            optional.setdefault(extra, []).append(str(req))
    return core, optional


def _extra_of(req: Requirement) -> str | None:
    """The extra a requirement belongs to (``extra == "chess"`` in its marker), if any."""
    found = re.search(r"""extra\s*==\s*["']([^"']+)["']""", str(req.marker or ""))
    return canonicalize_name(found.group(1)) if found else None


def requirements(extras: set[str], extra_lines: list[str] | None = None) -> list[str]:
    """The framework's dependencies (plus ``extras``), pinned to the versions installed here."""
    core, optional = _project_dependencies()
    extras = {canonicalize_name(extra) for extra in extras}  # metadata spells dm_control dm-control
    unknown = sorted(extras - set(optional))
    if unknown:
        raise BundleError(
            f"no extra named {', '.join(unknown)} in {DISTRIBUTION}: add it to pyproject.toml's "
            "[project.optional-dependencies] or fix `extra:` in the env's openenv.yaml"
        )
    lines = [_pinned(Requirement(raw)) for raw in core]
    lines += [_pinned(Requirement(raw)) for extra in sorted(extras) for raw in optional[extra]]
    lines += extra_lines or []
    return list(dict.fromkeys(lines))


def _pinned(req: Requirement) -> str:
    try:
        version = importlib.metadata.version(req.name)
    except importlib.metadata.PackageNotFoundError:
        version = None
    if version is not None and req.specifier.contains(version, prereleases=True):
        extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
        return f"{req.name}{extras}=={version}"
    req.marker = None
    return str(req)


def _env_requirement_lines(env_dir: Path) -> list[str]:
    lines: list[str] = []
    for candidate in (env_dir / "requirements.txt", env_dir / "server" / "requirements.txt"):
        if candidate.is_file():
            for line in candidate.read_text(encoding="utf-8").splitlines():
                line = line.split("#", 1)[0].strip()
                if line and not line.startswith("-"):
                    lines.append(line)
    return lines


# -- front matter ---------------------------------------------------------------------------


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML scalar


def _colors(name: str) -> tuple[str, str]:
    digest = hashlib.sha256(name.encode()).digest()
    first = HUB_COLORS[digest[0] % len(HUB_COLORS)]
    second = HUB_COLORS[(digest[0] + 1 + digest[1] % (len(HUB_COLORS) - 1)) % len(HUB_COLORS)]
    return first, second


def short_description(text: str) -> str:
    """``text`` cut at a word to the Hub's 60 characters."""
    text = " ".join(text.split())
    if len(text) <= SHORT_DESCRIPTION_MAX:
        return text
    cut = text[: SHORT_DESCRIPTION_MAX - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def front_matter(
    *,
    title: str,
    emoji: str,
    description: str,
    tags: list[str],
    port: int,
    base_path: str,
    oauth_scopes: Sequence[str] = (),
) -> str:
    """The Hub front matter block of a Space README (``oauth_scopes``: the Space offers "Sign
    in with Hugging Face" with them; Gradio's ``LoginButton`` and ``gr.OAuthToken`` use it)."""
    oauth = ""
    if oauth_scopes:
        listed = "".join(f"\n  - {_quoted(scope)}" for scope in oauth_scopes)
        oauth = f"\nhf_oauth: true\nhf_oauth_scopes:{listed}"
    color_from, color_to = _colors(title)
    all_tags = list(dict.fromkeys(["openenv", *tags]))
    return render_template(
        "front_matter.tmpl",
        title=_quoted(title),
        emoji=_quoted(emoji),
        color_from=color_from,
        color_to=color_to,
        port=port,
        base_path=base_path,
        short_description=_quoted(short_description(description or title)),
        oauth=oauth,
        tags="\n".join(f"  - {_quoted(t)}" for t in all_tags),
    ).strip()


def read_front_matter(readme: str) -> dict[str, Any]:
    """The YAML front matter at the top of a README (``{}`` when there is none)."""
    if not readme.startswith("---\n"):
        return {}
    block = readme[4:].split("\n---", 1)[0]
    return yaml.safe_load(block) or {}


def _strip_front_matter(text: str) -> str:
    if text.startswith("---\n") and "\n---" in text[4:]:
        return text[4:].split("\n---", 1)[1].lstrip("-\n")
    return text


# -- writing bundles ------------------------------------------------------------------------


def _prepare(out: Path) -> None:
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).is_file():
            raise BundleError(
                f"{out} is not empty and is not a Space bundle: choose an empty directory"
            )
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def _vendor_framework(out: Path) -> None:
    """Copy the framework's packages into ``out`` in the installed layout."""
    for name, target in VENDORED.items():
        if not (out / target).exists():
            shutil.copytree(_package_dir(name), out / target, ignore=_IGNORE)


def _write(out: Path, name: str, text: str) -> None:
    (out / name).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def _finish(bundle: Bundle) -> Bundle:
    _write(bundle.path, "requirements.txt", "\n".join(bundle.requirements))
    marker = {"kind": bundle.kind, "name": bundle.name, "requirements": bundle.requirements_hash}
    _write(bundle.path, MARKER, json.dumps(marker, indent=2))
    return bundle


def _client_names(entry: EnvPackage) -> tuple[str, str]:
    """(import line, class name) of the env's typed client by the registry's rule, read from
    its ``__init__.py`` without importing it (its extra may be missing here)."""
    init = _folder(entry) / "__init__.py"
    if init.is_file() and entry.client_name in init.read_text(encoding="utf-8"):
        return entry.client_import, entry.client_name
    return "from openenv.client import GenericEnvClient", "GenericEnvClient"


def _folder(entry: EnvPackage) -> Path:
    if entry.path is None:
        raise BundleError(f"{entry.name} has no package directory to bundle")
    return entry.path


def env_bundle(
    env_dir: Path, out: Path, *, port: int = DEFAULT_SPACE_PORT, repo_id: str | None = None
) -> Bundle:
    """Write the Space of one environment package (its playground at ``/web``) into ``out``."""
    entry = read_package(env_dir)
    _prepare(out)
    _vendor_framework(out)
    shutil.copytree(_folder(entry), out / "envs" / entry.package, ignore=_IGNORE)
    matter = front_matter(
        title=entry.title,
        emoji=entry.emoji,
        description=entry.description,
        tags=entry.tags,
        port=port,
        base_path="/web",
        oauth_scopes=entry.manifest.hf_oauth_scopes,
    )
    module, _, attr = entry.app_ref.partition(":")
    readme = _folder(entry) / "README.md"
    client_import, client_class = _client_names(entry)
    _write(
        out,
        "README.md",
        render_template(
            "README.env.md.tmpl",
            front_matter=matter,
            emoji_text=entry.emoji,
            title_text=entry.title,
            description_text=entry.description,
            name=entry.name,
            client_import=client_import,
            client_class=client_class,
            repo_id=repo_id or "OWNER/SPACE",
            body=_strip_front_matter(readme.read_text(encoding="utf-8"))
            if readme.is_file()
            else "",
        ),
    )
    _write(out, "Dockerfile", _dockerfile(entry.title, port, [entry]))
    _write(
        out,
        "app.py",
        render_template(
            "app_env.py.tmpl",
            name=entry.name,
            package=entry.package,
            app_module=module,
            app_import="app" if attr in ("", "app") else f"{attr} as app",
            port=port,
        ),
    )
    extras = {entry.extra} if entry.extra else set()
    reqs = requirements(extras, _env_requirement_lines(_folder(entry)))
    return _finish(Bundle(out, "env", entry.name, read_front_matter(matter + "\n"), reqs))


def catalog_bundle(
    envs: Path | list[EnvPackage],
    out: Path,
    *,
    port: int = DEFAULT_SPACE_PORT,
    repo_id: str | None = None,
    title: str = "OpenEnv Playground",
) -> Bundle:
    """Write the catalog Space of ``envs`` (a directory of environment packages, or the
    packages themselves), its landing page at ``/``."""
    from openenv.hub.spaces import space_url

    entries = discover(envs) if isinstance(envs, Path) else list(envs)
    if not entries:
        raise BundleError(f"no environment packages (with openenv.yaml) in {envs}")
    _prepare(out)
    _vendor_framework(out)
    for entry in entries:
        shutil.copytree(_folder(entry), out / "envs" / entry.package, ignore=_IGNORE)
    _write(out, "app.py", render_template("app_catalog.py.tmpl"))
    description = f"{len(entries)} OpenEnv environments to play in the browser or drive from code"
    matter = front_matter(
        title=title,
        emoji="🕹️",
        description=description,
        tags=sorted({t for e in entries for t in e.tags})[:10],
        port=port,
        base_path="/",
        oauth_scopes=list(dict.fromkeys(s for e in entries for s in e.manifest.hf_oauth_scopes)),
    )
    app_url = space_url(repo_id) if repo_id else "https://OWNER-SPACE.hf.space"
    example = next((e for e in entries if e.name == "grid_world"), entries[0])
    client_import, client_class = _client_names(example)
    rows = "\n".join(
        f"| {e.emoji} {e.title} | [/envs/{e.name}/web/](./envs/{e.name}/web/) | "
        f"`{app_url}/envs/{e.name}` |"
        for e in entries
    )
    _write(
        out,
        "README.md",
        render_template(
            "README.catalog.md.tmpl",
            front_matter=matter,
            emoji_text="🕹️",
            title_text=title,
            description_text=description + ".",
            env_rows=rows,
            app_url=app_url,
            example=example.name,
            client_import=client_import,
            client_class=client_class,
        ),
    )
    _write(out, "Dockerfile", _dockerfile(title, port, entries))
    extras = {e.extra for e in entries if e.extra}
    extra_lines = [line for e in entries for line in _env_requirement_lines(_folder(e))]
    reqs = requirements(extras, extra_lines)
    return _finish(Bundle(out, "catalog", title, read_front_matter(matter + "\n"), reqs))


# -- reading a bundle back (what the Space will run) ----------------------------------------


def dockerfile_runtime(dockerfile: str) -> tuple[dict[str, str], list[str]]:
    """The ``ENV`` variables and the ``CMD`` (exec form) of a Dockerfile.

    ``$VAR`` references inside ENV values are left as written (``PATH`` and ``HOME`` describe
    the container, not this machine).
    """
    env: dict[str, str] = {}
    cmd: list[str] = []
    for instruction in _instructions(dockerfile):
        keyword, _, rest = instruction.partition(" ")
        if keyword.upper() == "ENV":
            for pair in rest.split():
                key, _, value = pair.partition("=")
                env[key] = value
        elif keyword.upper() == "CMD":
            cmd = json.loads(rest)
    if not cmd:
        raise BundleError("the Dockerfile has no CMD in exec form")
    return env, cmd


def _instructions(dockerfile: str) -> list[str]:
    joined = dockerfile.replace("\\\n", " ")
    return [
        " ".join(line.split())
        for line in joined.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _dockerfile(what: str, port: int, entries: list[Any]) -> str:
    """The Space's Dockerfile, with the Debian packages the envs' manifests name (``apt:``)."""
    apt = sorted({name for e in entries for name in e.manifest.apt})
    return render_template(
        "Dockerfile.tmpl", what=what, port=port, apt="".join(f" {name}" for name in apt)
    )
