"""Publish a rendered Space bundle with ``huggingface_hub``: create, upload, configure.

The token comes from ``$HF_TOKEN`` or ``hf auth login`` and is never printed; secret values are
never printed either (only their names).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openenv.hub.bundle import MARKER
from openenv.hub.spaces import check_repo_id, hub_token, space_page, space_url


class PublishError(Exception):
    """Publishing failed; the message says what to do (it never contains the token)."""


@dataclass(frozen=True)
class Published:
    repo_id: str
    page: str
    app_url: str
    commit_url: str | None


def hub_api(token: str | None = None) -> Any:
    """An ``HfApi`` with the user's token, or :class:`PublishError` if there is none."""
    secret = hub_token(token)
    if not secret:
        raise PublishError(
            "no Hugging Face token: set HF_TOKEN or run `hf auth login` (a token with write access)"
        )
    from huggingface_hub import HfApi

    return HfApi(token=secret)


def default_repo_id(api: Any, name: str) -> str:
    """``<your user name>/<name>`` (the Hub's ``whoami``)."""
    user = api.whoami().get("name")
    if not user:
        raise PublishError("could not read your user name from the Hub: pass --repo-id OWNER/NAME")
    return f"{user}/{name.replace('_', '-')}"


def publish(
    bundle_dir: Path,
    repo_id: str,
    *,
    api: Any,
    private: bool = False,
    variables: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    say: Callable[[str], None] = print,
) -> Published:
    """Create the Space (docker SDK), upload the bundle, set variables and secrets."""
    from huggingface_hub.errors import HfHubHTTPError

    check_repo_id(repo_id)
    try:
        say(f"Creating the Space {repo_id} ({'private' if private else 'public'}, docker SDK)")
        api.create_repo(
            repo_id, repo_type="space", space_sdk="docker", private=private, exist_ok=True
        )
        say(f"Uploading {bundle_dir}")
        commit = api.upload_folder(
            repo_id=repo_id,
            folder_path=str(bundle_dir),
            repo_type="space",
            commit_message="Publish with `openenv push`",
            ignore_patterns=[MARKER, "__pycache__", "*.pyc"],
        )
        for key, value in (variables or {}).items():
            api.add_space_variable(repo_id, key, value)
            say(f"Set variable {key}")
        for key, value in (secrets or {}).items():
            api.add_space_secret(repo_id, key, value)
            say(f"Set secret {key}")
    except HfHubHTTPError as exc:
        raise PublishError(f"the Hub refused: {_without_secrets(str(exc), secrets)}") from None
    return Published(
        repo_id=repo_id,
        page=space_page(repo_id),
        app_url=space_url(repo_id),
        commit_url=getattr(commit, "commit_url", None),
    )


def _without_secrets(text: str, secrets: dict[str, str] | None) -> str:
    for value in (secrets or {}).values():
        if value:
            text = text.replace(value, "<secret>")
    return text


def parse_pairs(pairs: list[str], flag: str) -> dict[str, str]:
    """``["K=V", ...]`` → ``{"K": "V"}``; a malformed pair names the flag (never a secret value)."""
    parsed: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            shown = "<hidden>" if flag == "--secret" else repr(pair)
            raise PublishError(f"{flag} takes KEY=VALUE, got {shown}")
        parsed[key.strip()] = value
    return parsed
