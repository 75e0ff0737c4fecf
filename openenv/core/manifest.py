"""What an environment package's manifest (``openenv.yaml``) says, read one way everywhere.

The manifest model is the environment's identity card: its name, the title people read, its
description, tags and emoji, the optional-dependency ``extra`` it needs, and the names of its
server app, typed client and environment class when they differ from the convention
(see :mod:`openenv.core.registry`). Unknown keys are kept, never refused.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

MANIFEST = "openenv.yaml"
DEFAULT_EMOJI = "🎮"


DEBIAN_PACKAGE = re.compile(r"[a-z0-9][a-z0-9+.-]{1,62}")
OAUTH_SCOPE = re.compile(r"[a-z][a-z0-9-]{1,40}")


def normalize(name: str) -> str:
    """``"Echo-Env"`` / ``"echo_env"`` / ``"echo"`` → ``"echo"`` (the key names compare by)."""
    key = name.strip().lower().replace("-", "_")
    return key.removesuffix("_env") or key


class Manifest(BaseModel):
    """What an ``openenv.yaml`` says. Unknown keys are kept (``model_extra``), never refused."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str
    title: str | None = None  # what people read; default: the name spelt out
    description: str = ""
    version: str | None = None
    tags: tuple[str, ...] = ()
    emoji: str = DEFAULT_EMOJI
    extra: str | None = None  # the optional-dependency extra of openenv-playground it needs
    app: str | None = None  # module:attribute of the server app
    client: str | None = None  # class name of the typed client (default <Name>Env)
    environment: str | None = None  # class name of the environment (default <Name>Environment)
    author: str | None = None
    documentation_url: str | None = None
    apt: tuple[str, ...] = ()  # Debian packages its Space image needs (chromium, git)
    # "Sign in with Hugging Face" on its Space, with these OAuth scopes (e.g. inference-api:
    # visitors' model calls billed to their own account); none: no sign-in
    hf_oauth_scopes: tuple[str, ...] = ()

    @field_validator("name", "version", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return None if value is None else str(value)  # YAML reads `version: 1.0` as a number

    @field_validator("title", "description", "emoji", "extra", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if value in (None, "") else str(value)

    @field_validator("tags", mode="before")
    @classmethod
    def _tags(cls, value: Any) -> Any:
        return tuple(str(tag) for tag in value or ())

    @field_validator("apt", mode="before")
    @classmethod
    def _apt(cls, value: Any) -> Any:
        names = tuple(str(name) for name in value or ())
        for name in names:  # they end up in a Dockerfile's RUN line: Debian names only
            if not DEBIAN_PACKAGE.fullmatch(name):
                raise ValueError(f"apt: {name!r} is not a Debian package name")
        return names

    @field_validator("hf_oauth_scopes", mode="before")
    @classmethod
    def _scopes(cls, value: Any) -> Any:
        scopes = tuple(str(scope) for scope in value or ())
        for scope in scopes:  # they end up in the Space's README front matter
            if not OAUTH_SCOPE.fullmatch(scope):
                raise ValueError(f"hf_oauth_scopes: {scope!r} is not an OAuth scope name")
        return scopes

    @property
    def display_title(self) -> str:
        """The name people read: ``title``, else the name spelt out (``Grid World``)."""
        return self.title or normalize(self.name).replace("_", " ").title()

    @classmethod
    def read(cls, path: Path, default_name: str) -> Manifest:
        """Parse the manifest file at ``path``; ``ValueError`` says what is wrong with it."""
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ValueError(f"{path} is not valid YAML: {exc}") from exc
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise ValueError(f"{path} must be a mapping of keys (name:, description:, ...)")
        data = {k: v for k, v in data.items() if v is not None or k == "name"}
        data["name"] = data.get("name") or default_name
        data.setdefault("emoji", DEFAULT_EMOJI)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            fields = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False)
            )
            raise ValueError(f"{path}: {fields}") from None
