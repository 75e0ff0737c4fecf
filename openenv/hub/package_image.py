"""Package images: what the reference's ``openenv validate PACKAGE`` builds and runs.

Validation builds each environment package's ``Dockerfile`` with the package folder as the
build context, then runs it as uid 65532 on a read-only root filesystem (``/tmp`` a tmpfs),
serving on port 8000. Every package's Dockerfile is the same few lines, rendered here from
``spaces/templates/Dockerfile.package.tmpl``: it starts FROM one shared base image (the
framework and the dependencies of every environment, installed once, rendered from
``Dockerfile.base.tmpl``) and adds only the package, so 25 images share every layer but one.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from openenv.core.registry import EnvPackage, read_package
from openenv.hub.bundle import (
    Bundle,
    BundleError,
    _env_requirement_lines,
    _finish,
    _prepare,
    _vendor_framework,
    _write,
    render_template,
    requirements,
)

BASE_IMAGE = "openenv-env-base:latest"
PACKAGE_PORT = 8000  # the port the reference's validator publishes
DOCKERFILE = "Dockerfile"
# Extras whose own pins cannot be met next to the framework's (BrowserGym pins an old
# Playwright): installed without their dependencies, the ones they need listed in NO_DEPS_NEEDS.
NO_DEPS_EXTRAS = frozenset({"browsergym"})
NO_DEPS_NEEDS = ("beautifulsoup4>=4.12", "lxml>=4.9,<6", "pyparsing>=3", "playwright>=1.44")


IMAGE_ENV_KEY = "image_env"  # openenv.yaml: variables the package's image sets
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
_ENV_VALUE = re.compile(r"[A-Za-z0-9_.,:/=+-]{0,256}")


def image_env(entry: EnvPackage) -> dict[str, str]:
    """The ``image_env:`` of a package's manifest, checked before it reaches a Dockerfile."""
    raw = (entry.manifest.model_extra or {}).get(IMAGE_ENV_KEY) or {}
    if not isinstance(raw, dict):
        raise BundleError(f"{IMAGE_ENV_KEY}: in {entry.name}'s openenv.yaml must be a mapping")
    env = {str(k): str(v) for k, v in raw.items()}
    for key, value in env.items():
        if not _ENV_NAME.fullmatch(key) or not _ENV_VALUE.fullmatch(value):
            raise BundleError(f"{IMAGE_ENV_KEY}: {key}={value!r} is not a plain variable")
    return env


def package_dockerfile(entry: EnvPackage, *, base: str = BASE_IMAGE) -> str:
    """The Dockerfile of one environment package (its folder is the build context)."""
    env = image_env(entry)
    lines = "".join(f"ENV {key}={value}\n" for key, value in sorted(env.items()))
    return render_template(
        "Dockerfile.package.tmpl",
        what=entry.title,
        package=entry.package,
        base=base,
        port=PACKAGE_PORT,
        env=lines,
    )


def write_package_dockerfile(env_dir: Path, *, base: str = BASE_IMAGE) -> Path:
    """Write ``env_dir/Dockerfile``; return its path."""
    entry = read_package(env_dir)
    path = Path(env_dir) / DOCKERFILE
    path.write_text(package_dockerfile(entry, base=base), encoding="utf-8")
    return path


def _split_no_deps(lines: list[str]) -> tuple[list[str], list[str]]:
    """(requirements installed with their dependencies, those installed without)."""
    from openenv.hub.bundle import _project_dependencies

    _, optional = _project_dependencies()
    no_deps = {line for extra in NO_DEPS_EXTRAS for line in optional.get(extra, [])}
    names = {line.split("=")[0].split(">")[0].split("<")[0].strip() for line in no_deps}
    kept = [line for line in lines if line.split("=")[0].strip() not in names]
    dropped = [line for line in lines if line.split("=")[0].strip() in names]
    return kept, dropped


def base_bundle(entries: list[EnvPackage], out: Path, *, wheels: Path | None = None) -> Bundle:
    """Write the build context of the base image of ``entries`` into ``out``.

    ``wheels``, when given, is a wheelhouse copied into the context so the image installs
    without an index (the offline Docker lane makes one with ``pip wheel``).
    """
    if not entries:
        raise BundleError("no environment packages to build a base image for")
    _prepare(out)
    _vendor_framework(out)
    extras = {e.extra for e in entries if e.extra}
    extra_lines = [line for e in entries if e.path for line in _env_requirement_lines(e.path)]
    reqs = requirements(extras, extra_lines)
    kept, no_deps = _split_no_deps(reqs)
    if no_deps:
        kept += [line for line in NO_DEPS_NEEDS if line not in kept]
    (out / "wheels").mkdir()
    if wheels is not None:
        for wheel in Path(wheels).glob("*.whl"):
            shutil.copy2(wheel, out / "wheels" / wheel.name)
    else:
        _write(out / "wheels", ".keep", "")
    _write(out, "requirements-no-deps.txt", "\n".join(no_deps))
    apt = sorted({name for e in entries for name in e.manifest.apt})
    # The hash (the image's label) covers everything the image installs.
    bundle = Bundle(out, "catalog", "openenv-env-base", {}, kept)
    installs = "\n".join([*kept, *no_deps, *(f"apt:{name}" for name in apt)])
    _write(
        out,
        "Dockerfile",
        render_template(
            "Dockerfile.base.tmpl",
            count=len(entries),
            apt="".join(f" {name}" for name in apt),
            port=PACKAGE_PORT,
            requirements_hash=hashlib.sha256(installs.encode()).hexdigest()[:16],
        ),
    )
    return _finish(bundle)
