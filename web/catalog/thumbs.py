"""Thumbnails for the catalog: the first render of a fresh episode (seed 0), drawn by the one
view dispatch (:func:`openenv.web.drawing.to_thumbnail`)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from openenv.web.drawing import Thumbnail, to_thumbnail

log = logging.getLogger("openenv.web.catalog")


async def first_render(env_factory: Any) -> Thumbnail:
    """Reset a fresh environment with seed 0 in a worker thread and picture its view."""
    return await asyncio.to_thread(_first_render_blocking, env_factory)


def _first_render_blocking(env_factory: Any) -> Thumbnail:
    env = env_factory()
    try:
        asyncio.run(env.reset_async(seed=0))
        view = env.render()
    except Exception as exc:  # a broken env must not take the landing page down: log, show it
        log.exception("preview of %r failed", env_factory)
        return Thumbnail("none", note=f"preview failed: {exc}")
    finally:
        env.close()
    return to_thumbnail(view)
