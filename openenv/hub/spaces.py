"""Where a Hugging Face Space is served, and which token it takes (pure helpers).

A Space ``owner/name`` is served at ``https://owner-name.hf.space``: the Hub lowercases the repo
id and turns every character outside ``[a-z0-9]`` (``/``, ``_``, ``.``) into ``-``. A private
Space needs a Hugging Face token, sent as a bearer token (``$HF_TOKEN`` or the token saved by
``hf auth login``). Starting a client of a Space is :func:`openenv.launch.from_space`.
"""

from __future__ import annotations

import os
import re

HF_TOKEN_ENV_VAR = "HF_TOKEN"
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")
_SPACE_PAGE = re.compile(r"^https?://huggingface\.co/spaces/([^/]+/[^/?#]+)")


def check_repo_id(repo_id: str) -> str:
    """``repo_id`` if it looks like ``owner/name``, else ``ValueError`` saying what is expected."""
    if not _REPO_ID.match(repo_id):
        raise ValueError(
            f"{repo_id!r} is not a Space id: use OWNER/NAME, e.g. 'openenv/grid_world'"
        )
    return repo_id


def space_subdomain(repo_id: str) -> str:
    """``"Owner/grid_world.v2"`` → ``"owner-grid-world-v2"``."""
    return re.sub(r"[^a-z0-9]", "-", check_repo_id(repo_id).lower())


def space_url(repo_id_or_url: str) -> str:
    """The base URL of a Space's app from ``owner/name`` (or a huggingface.co/spaces/ URL).

    A URL of a running server (``http://…`` / ``https://….hf.space``) is returned unchanged.
    """
    page = _SPACE_PAGE.match(repo_id_or_url)
    if page:
        return space_url(page.group(1))
    if repo_id_or_url.startswith(("http://", "https://")):
        return repo_id_or_url.rstrip("/")
    return f"https://{space_subdomain(repo_id_or_url)}.hf.space"


def space_page(repo_id: str) -> str:
    """The Space's page on the Hub (settings, logs, files)."""
    return f"https://huggingface.co/spaces/{check_repo_id(repo_id)}"


def hub_token(explicit: str | None = None) -> str | None:
    """The Hugging Face token to use: ``explicit``, ``$HF_TOKEN``, else ``hf auth login``'s."""
    if explicit:
        return explicit
    if os.environ.get(HF_TOKEN_ENV_VAR):
        return os.environ[HF_TOKEN_ENV_VAR]
    try:
        from huggingface_hub import get_token
    except ModuleNotFoundError:
        return None
    return get_token()
