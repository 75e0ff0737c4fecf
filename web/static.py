"""The playground's own static files (CSS, JS): package data of ``openenv.web.assets``.

They are read with :mod:`importlib.resources`, so a wheel serves them exactly as a checkout
does (the repository keeps them in its top-level ``assets/`` folder, see ``setup.py``).
"""

from __future__ import annotations

import functools
from importlib.resources import files

PACKAGE = "openenv.web.assets"


@functools.cache
def asset(name: str) -> str:
    """The text of the asset ``name`` (``"playground.css"``); a clear error when it is missing."""
    resource = files(PACKAGE) / name
    if not resource.is_file():
        raise FileNotFoundError(
            f"the playground's {name} is missing from the installed package {PACKAGE}: "
            "reinstall openenv-playground (pip install --force-reinstall openenv-playground, "
            "or pip install -e . in a checkout)"
        )
    return resource.read_text(encoding="utf-8")
