"""``openenv build``: write the Space bundle (the Docker build context) and build the image.

The image is built when a Docker engine answers (the ``docker`` CLI, else the docker SDK);
otherwise the context is left ready with the command that builds it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from openenv.cli import ui
from openenv.cli.targets import Target
from openenv.cli.ui import CliError
from openenv.hub.bundle import Bundle, BundleError, catalog_bundle, env_bundle


def write_bundle(target: Target, out: Path, *, port: int, repo_id: str | None = None) -> Bundle:
    """Render the Space bundle of ``target`` into ``out``."""
    what = target.entry.name if target.entry else "the catalog"
    try:
        with ui.step(f"Rendering the Space bundle of {what} into {out}"):
            if target.entry is not None:
                bundle = env_bundle(target.entry.path, out, port=port, repo_id=repo_id)
            else:
                bundle = catalog_bundle(target.entries, out, port=port, repo_id=repo_id)
    except BundleError as exc:
        raise CliError(str(exc)) from None
    ui.ok(f"{len(bundle.files())} files, {len(bundle.requirements)} requirements")
    return bundle


def default_tag(bundle: Bundle) -> str:
    slug = bundle.name.lower().replace("_", "-").replace(" ", "-")
    return f"{slug}-env:latest" if bundle.kind == "env" else f"{slug}:latest"


def docker_engine() -> str | None:
    """``"cli"`` or ``"sdk"`` when a Docker engine answers, else ``None``."""
    if shutil.which("docker"):
        try:
            probe = subprocess.run(
                ["docker", "info", "--format", "{{.ServerVersion}}"],
                capture_output=True,
                text=True,
                timeout=15,
            )
        except subprocess.TimeoutExpired:  # a daemon that does not answer is no engine
            return None
        if probe.returncode == 0:
            return "cli"
    try:
        import docker
        from docker.errors import DockerException
    except ModuleNotFoundError:
        return None
    try:
        docker.from_env().ping()
    except DockerException:
        return None
    return "sdk"


def build_image(bundle: Bundle, tag: str) -> bool:
    """Build ``tag`` from the bundle; ``False`` (with a message) when there is no engine."""
    engine = docker_engine()
    if engine is None:
        ui.warn("No Docker engine is reachable (is the daemon running?); the image was not built.")
        ui.info(f"  The build context is ready: docker build -t {tag} {bundle.path}")
        return False
    with ui.step(f"Building the image {tag} with Docker ({engine})"):
        if engine == "cli":
            done = subprocess.run(["docker", "build", "-t", tag, str(bundle.path)])
            if done.returncode != 0:
                raise CliError(
                    f"docker build failed (exit {done.returncode}); see its output above"
                )
        else:
            _build_with_sdk(bundle.path, tag)
    port = bundle.front_matter.get("app_port", 7860)
    ui.ok(f"Image {tag} built; run it with: docker run -p {port}:{port} {tag}")
    return True


def _build_with_sdk(path: Path, tag: str) -> None:
    import docker
    from docker.errors import BuildError

    try:
        _, logs = docker.from_env().images.build(path=str(path), tag=tag, rm=True)
    except BuildError as exc:
        raise CliError(f"docker build failed: {exc}") from None
    for chunk in logs:
        line = chunk.get("stream", "").rstrip()
        if line:
            ui.info(ui.dim(line))


def write_package_files(target: Target) -> None:
    """Write the Dockerfile and the runtime plan package validation uses, for the target's
    package (or every package of a catalog). An existing plan is kept (it may be written by
    hand); a missing one is played here from the env's legal actions."""
    from openenv.hub.package_image import write_package_dockerfile
    from openenv.hub.runtime_plan import PLAN_PATH, PlanError, write_plan

    entries = [target.entry] if target.entry is not None else target.entries
    for entry in entries:
        if entry.path is None:
            continue
        ui.ok(f"{write_package_dockerfile(entry.path)}")
        if (entry.path / PLAN_PATH).is_file():
            continue
        try:
            ui.ok(f"{write_plan(entry.path)}")
        except PlanError as exc:
            raise CliError(str(exc)) from None
