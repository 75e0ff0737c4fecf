"""The "same call in Python" snippet: the typed client of the env's package, or a generic one."""

from __future__ import annotations

import importlib
import inspect
import json
from dataclasses import dataclass
from typing import Any

from openenv.client import EnvClient
from openenv.core.types import Action


@dataclass(frozen=True)
class ClientNames:
    """Where the snippet imports from: ``package`` exports ``client`` and ``action``."""

    package: str | None
    client: str | None
    action: str | None


def client_names(env_cls: type | None, action_cls: type[Action]) -> ClientNames:
    """Find the env package's client class (an EnvClient subclass) and exported action class."""
    package = _top_package(env_cls) if env_cls is not None else None
    if package is None:
        return ClientNames(None, None, None)
    try:
        module = importlib.import_module(package)
    except ImportError:
        return ClientNames(None, None, None)
    clients = [name for name, obj in vars(module).items() if _is_env_client(obj)]
    # The package's action class, or the one a server refined for its schema only (a subclass
    # of the same name, as gymnasium_env and dm_control_env build for the served task).
    exported = getattr(module, action_cls.__name__, None)
    same = inspect.isclass(exported) and issubclass(action_cls, exported)
    action = action_cls.__name__ if same else None
    return ClientNames(package, clients[0] if clients else None, action)


def _is_env_client(obj: Any) -> bool:
    return (
        inspect.isclass(obj)
        and issubclass(obj, EnvClient)
        and obj.__module__.split(".")[0] != "openenv"
    )


def _top_package(env_cls: type) -> str | None:
    top = env_cls.__module__.split(".")[0]
    return None if top in ("__main__", "openenv", "builtins") else top


def python_snippet(
    names: ClientNames,
    base_url: str,
    action: dict[str, Any] | None,
    reset_kwargs: dict[str, Any] | None = None,
    needs_token: bool = False,
) -> str:
    """Code that, pasted in a Python shell, replays the visitor's last call on this server."""
    reset_args = ", ".join(f"{k}={v!r}" for k, v in (reset_kwargs or {}).items())
    lines = []
    if needs_token:
        lines.append("# This server needs its API token: export OPENENV_API_TOKEN=... first.")
    if names.client and names.action:
        lines.append(f"from {names.package} import {names.action}, {names.client}")
        client = names.client
        call = f"{names.action}({_kwargs(action)})"
    else:
        lines.append("from openenv.client import GenericEnvClient")
        client = "GenericEnvClient"
        call = json.dumps(_without_metadata(action or {}), ensure_ascii=False)
    lines += [
        "",
        f"with {client}(base_url={base_url!r}).sync() as env:",
        f"    result = env.reset({reset_args})",
    ]
    if action is not None:
        lines.append(f"    result = env.step({call})")
    lines += [
        "    print(result.observation)",
        "    print('reward:', result.reward, 'done:', result.done)",
    ]
    return "\n".join(lines) + "\n"


def _kwargs(action: dict[str, Any] | None) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in _without_metadata(action or {}).items())


def _without_metadata(action: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if not (k == "metadata" and not v)}
