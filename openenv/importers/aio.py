"""Running a source's coroutines from our sync ``reset``/``step`` on a private event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
from collections.abc import Awaitable
from typing import Any


def run_on(loop: asyncio.AbstractEventLoop, coro: Awaitable[Any]) -> Any:
    """``loop.run_until_complete(coro)``, from a helper thread when this one runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return loop.run_until_complete(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(loop.run_until_complete, coro).result()


async def resolve(value: Any) -> Any:
    """``value``, awaited when the source's method was async."""
    return await value if inspect.isawaitable(value) else value


async def settle(job: asyncio.Future[Any]) -> None:
    """Wait for a cancelled or finished job, whatever it ended with."""
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await job
