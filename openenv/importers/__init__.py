"""Environments of other frameworks as OpenEnv env packages (``openenv import``).

An importer reads a source (a Verifiers taskset, an ORS environment), says what it found
(:mod:`.vf_source`), and the CLI writes an ordinary env package around it from the
``openenv init`` templates. The package runs like any other: its ``server/environment.py``
subclasses the adapter (:mod:`.vf_env`), which plays the source's own episode loop and turns
its reward functions into our reward components. Nothing here is imported by the server.
"""

from __future__ import annotations


class SourceError(ValueError):
    """The source cannot be imported; the message says why and what to pass instead."""
