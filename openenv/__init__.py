"""OpenEnv-compatible environments with a browser playground on every server.

Layers: ``openenv.core`` (wire types, the Environment contract, views, errors),
``openenv.server`` (create_app, sessions, /ws), ``openenv.client`` (EnvClient).
"""

__version__ = "0.1.0"

_LAZY = {
    "AutoAction": "openenv.launch.auto",
    "AutoEnv": "openenv.launch.auto",
    "EnvPool": "openenv.client.pool",
}


def __getattr__(name: str):
    """``from openenv import AutoEnv, AutoAction, EnvPool`` without importing them eagerly."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'openenv' has no attribute {name!r}")
