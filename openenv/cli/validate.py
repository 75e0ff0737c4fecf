"""``openenv validate PATH``: package layout, manifest, client, ``check_env`` and the server app.

Everything runs in this process: the package is imported (its parent directory is put on
``sys.path`` if needed) and its environment class goes through :func:`openenv.testing.check_env`.

``--level`` (``openenv`` 0.10's levels) stops early: ``static`` reads files only (manifest and
layout; no package code runs), ``runtime`` and ``semantic`` (the default) run every check.
"""

from __future__ import annotations

from pathlib import Path

from openenv.cli.report import LEVELS, Report
from openenv.core.errors import EnvNotFound, EnvUnavailable
from openenv.core.registry import MANIFEST, EnvPackage, make_importable, read_package

REQUIRED = (
    "__init__.py",
    "models.py",
    "client.py",
    "server/__init__.py",
    "server/environment.py",
    "server/app.py",
)
RECOMMENDED = ("README.md", "tests")
MANIFEST_KEYS = ("name", "version", "description")


def validate_package(entry: EnvPackage, level: str = "semantic") -> Report:
    """Run the in-process checks of ``level`` (see :data:`LEVELS`) on one environment package."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    report = Report(f"{entry.name} ({entry.path})")
    _check_manifest(entry, report)
    if not _check_layout(entry, report) or level == "static":
        return report
    make_importable(entry)
    _check_client(entry, report)
    _check_environment(entry, report)
    _check_server(entry, report)
    return report


def _check_manifest(entry: EnvPackage, report: Report) -> None:
    missing = [key for key in MANIFEST_KEYS if not getattr(entry.manifest, key)]
    if missing:
        report.failed("manifest", f"{MANIFEST} lacks {', '.join(missing)}: add them")
    elif entry.package != f"{entry.name}_env":
        report.warned("manifest", f"name {entry.name!r} but the package is {entry.package!r}")
    else:
        version = entry.manifest.version
        report.passed("manifest", f"{MANIFEST}: {entry.name} {version}, app {entry.app_ref}")


def _check_layout(entry: EnvPackage, report: Report) -> bool:
    missing = [p for p in REQUIRED if not (entry.path / p).exists()]
    if missing:
        report.failed("layout", f"missing {', '.join(missing)} (see `openenv init` for the shape)")
        return False
    absent = [p for p in RECOMMENDED if not (entry.path / p).exists()]
    if absent:
        report.warned("layout", f"all required files present; no {', '.join(absent)}")
    else:
        report.passed("layout", "models, client, server/environment, server/app, README, tests")
    return True


def _check_client(entry: EnvPackage, report: Report) -> None:
    try:
        client = entry.client_class()
    except EnvNotFound as exc:
        report.failed("client", str(exc))
        return
    except Exception as exc:  # any import-time error is this check's finding, reported with it
        report.failed("client", f"importing {entry.package} raised {type(exc).__name__}: {exc}")
        return
    models = client._models()  # type: ignore[attr-defined]
    if None in models:
        report.failed("client", f"{client.__name__} must subclass EnvClient[Action, Obs, State]")
    else:
        names = ", ".join(m.__name__ for m in models)
        report.passed("client", f"{client.__name__}(EnvClient[{names}])")


def _check_environment(entry: EnvPackage, report: Report) -> None:
    from openenv.testing import EnvCheckError, check_env

    try:
        env_cls = entry.environment_class()
    except EnvNotFound as exc:
        report.failed("check_env", str(exc))
        return
    except Exception as exc:  # any import-time error is this check's finding, reported with it
        report.failed("check_env", f"importing server/environment.py raised {exc!r}")
        return
    try:
        notes = check_env(env_cls())
    except EnvCheckError as exc:
        report.failed("check_env", f"{env_cls.__name__}: {exc}")
        return
    except Exception as exc:  # a crash inside the env is the finding: report it, don't hide it
        report.failed("check_env", f"{env_cls.__name__} raised {type(exc).__name__}: {exc}")
        return
    detail = f"{env_cls.__name__} honours the contract"
    if notes:
        report.warned("check_env", f"{detail}; not checked: {'; '.join(notes)}")
    else:
        report.passed("check_env", detail)


def _check_server(entry: EnvPackage, report: Report) -> None:
    try:
        app = entry.import_app()
    except EnvUnavailable as exc:
        report.failed("server", str(exc))
        return
    except Exception as exc:  # the app module failing to import is the finding
        report.failed("server", f"importing {entry.app_ref} raised {type(exc).__name__}: {exc}")
        return
    from fastapi.testclient import TestClient

    with TestClient(app) as client:
        failing = [
            p for p in ("/health", "/metadata", "/schema") if client.get(p).status_code != 200
        ]
        playground = client.get("/web/").status_code == 200
    if failing:
        report.failed("server", f"{entry.app_ref}: GET {', '.join(failing)} failed; use create_app")
    elif not playground:
        report.warned("server", "the API is served but GET /web/ finds no playground")
    else:
        report.passed("server", f"{entry.app_ref}: /health, /metadata, /schema and /web/ answer")


def validate_path(path: Path, level: str = "semantic") -> Report:
    """Validate the environment package at ``path``."""
    return validate_package(read_package(path), level)
