"""Clients for environment servers: typed (EnvClient), generic (dicts), and blocking (.sync())."""

from openenv.client.env_client import EnvClient
from openenv.client.generic import GenericEnvClient
from openenv.client.sync import SyncEnvClient

__all__ = ["EnvClient", "GenericEnvClient", "SyncEnvClient"]
