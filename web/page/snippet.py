"""The "same call in Python" snippet: the typed client of the env's package, or a generic one."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from openenv.core.errors import EnvNotFound, EnvUnavailable
from openenv.core.registry import EnvPackage
from openenv.core.types import Action


@dataclass(frozen=True)
class ClientNames:
    """Where the snippet imports from: ``package`` exports ``client`` and ``action``."""

    package: str | None
    client: str | None
    action: str | None


def client_names(package: EnvPackage, action_cls: type[Action]) -> ClientNames:
    """The env package's typed client and exported Action class, by the registry's rule."""
    if package.path is None:
        return ClientNames(None, None, None)
    try:
        client, exported = package.client_class(), package.action_class()
    except (EnvNotFound, EnvUnavailable, ImportError):
        return ClientNames(None, None, None)
    # The package's action class, or the one a server refined for its schema only (a subclass
    # of the same name, as gymnasium_env and dm_control_env build for the served task).
    same = action_cls.__name__ == exported.__name__ and issubclass(action_cls, exported)
    action = exported.__name__ if same else None
    return ClientNames(package.package, client.__name__, action)


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
