"""``openenv.core.sync_client``: ``SyncEnvClient`` at ``openenv`` 0.10's import path (ours:
:class:`openenv.client.SyncEnvClient`, what ``EnvClient(...).sync()`` returns)."""

from openenv.client.sync import SyncEnvClient

__all__ = ["SyncEnvClient"]
