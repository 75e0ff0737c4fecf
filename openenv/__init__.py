"""OpenEnv-compatible environments with a browser playground on every server.

Layers: ``openenv.core`` (wire types, the Environment contract, views, errors),
``openenv.server`` (create_app, sessions, /ws), ``openenv.client`` (EnvClient).
"""

__version__ = "0.1.0"
