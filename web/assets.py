"""The playground's own static files (CSS, JS) from the project's ``assets/`` folder."""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def asset(name: str) -> str:
    """The text of ``assets/<name>``; a clear error when the checkout lacks it."""
    path = ASSETS / name
    if not path.is_file():
        raise FileNotFoundError(
            f"the playground's {name} is missing from {ASSETS}: run from a source checkout "
            "or install the project in editable mode (pip install -e .)"
        )
    return path.read_text(encoding="utf-8")
