"""The server's heap at startup, kept out of the cyclic garbage collector's way.

A playground server holds a few million objects once it has started (Gradio, FastAPI,
pydantic's schemas, the env's own modules), none of which ever becomes garbage. Python's full
(generation 2) collection walks every one of them each time it runs, with the event loop
stopped: measured with 256 playground visitors on one core, 60 ms growing to 417 ms, every few
seconds, which was the whole tail of the click latency. :func:`freeze_startup_heap`, run once
the app has started, moves them to the permanent generation (``gc.freeze``): later collections
walk only what sessions made since. Frozen objects are still freed by reference counting; a
cycle among them is never collected, so the heap is collected first, and the freeze happens
once per process: when the first app starts, every app of the process has been built (a catalog
builds all its envs' apps, then starts them), and a process that makes apps one after another
(a test run) does not keep each one's cycles forever. ``OPENENV_GC_FREEZE=0`` turns it off.
"""

from __future__ import annotations

import gc
import os

_frozen = False


def freeze_startup_heap() -> bool:
    """Collect the garbage, then freeze what lives, the first time it is called in this process
    (each app calls it as it starts). False when turned off or done already."""
    global _frozen
    if os.environ.get("OPENENV_GC_FREEZE", "1").strip().lower() in ("0", "off", "false", "no"):
        return False
    if _frozen:
        return False
    _frozen = True
    gc.collect()
    gc.freeze()
    return True
