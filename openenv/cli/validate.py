"""``openenv validate PATH``: package layout, manifest, client, ``check_env`` and the server app.

Everything runs in this process: the package is imported (its parent directory is put on
``sys.path`` if needed) and its environment class goes through :func:`openenv.testing.check_env`.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from types import ModuleType

from openenv.cli.report import Report
from openenv.runtime.discovery import (
    MANIFEST,
    EnvPackage,
    EnvUnavailable,
    import_app,
    load_package,
    make_importable,
)

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


def validate_package(entry: EnvPackage) -> Report:
    """Run every in-process check on one environment package."""
    report = Report(f"{entry.name} ({entry.path})")
    _check_manifest(entry, report)
    if not _check_layout(entry, report):
        return report
    make_importable(entry)
    _check_client(entry, report)
    _check_environment(entry, report)
    _check_server(entry, report)
    return report


def _check_manifest(entry: EnvPackage, report: Report) -> None:
    missing = [key for key in MANIFEST_KEYS if not entry.manifest.get(key)]
    if missing:
        report.failed("manifest", f"{MANIFEST} lacks {', '.join(missing)}: add them")
    elif entry.package != f"{entry.name}_env":
        report.warned("manifest", f"name {entry.name!r} but the package is {entry.package!r}")
    else:
        version = entry.manifest["version"]
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


def _import(report: Report, check: str, module: str) -> ModuleType | None:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        report.failed(check, f"cannot import {module}: {exc}")
    except Exception as exc:  # any import-time error is this check's finding, reported with it
        report.failed(check, f"importing {module} raised {type(exc).__name__}: {exc}")
    return None


def _check_client(entry: EnvPackage, report: Report) -> None:
    from openenv.client import EnvClient

    module = _import(report, "client", entry.package)
    if module is None:
        return
    clients = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, EnvClient) and obj is not EnvClient
    ]
    if not clients:
        report.failed("client", f"{entry.package}/__init__.py exports no EnvClient subclass")
        return
    client = clients[0]
    models = [m.__name__ if m else "?" for m in client._models()]
    if None in client._models():
        report.failed("client", f"{client.__name__} must subclass EnvClient[Action, Obs, State]")
    else:
        report.passed("client", f"{client.__name__}(EnvClient[{', '.join(models)}])")


def _environment_class(module: ModuleType) -> type | None:
    from openenv.core import Environment

    for obj in vars(module).values():
        if (
            inspect.isclass(obj)
            and issubclass(obj, Environment)
            and obj.__module__ == module.__name__
        ):
            return obj
    return None


def _check_environment(entry: EnvPackage, report: Report) -> None:
    from openenv.testing import EnvCheckError, check_env

    module = _import(report, "check_env", f"{entry.package}.server.environment")
    if module is None:
        return
    env_cls = _environment_class(module)
    if env_cls is None:
        report.failed("check_env", "server/environment.py defines no Environment subclass")
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
        app = import_app(entry)
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


def validate_path(path: Path) -> Report:
    """Validate the environment package at ``path``."""
    return validate_package(load_package(path))
