"""Providers that start environment servers: a local process (default) or a Docker container.

``LocalProcessProvider(app)`` and ``DockerProvider(image)`` share one interface
(:class:`Provider`: start → base URL, wait_until_healthy, logs, stop). ``launch_client`` binds
a provider to a typed client that stops it on close; ``find_env_package`` locates installed
environment packages by name. The Docker provider imports the ``docker`` SDK only when used.
"""

from openenv.runtime.base import Provider
from openenv.runtime.bootstrap import Bootstrap, launch_client
from openenv.runtime.errors import EnvNotFound, ProviderError
from openenv.runtime.packages import EnvPackage, find_env_package, list_env_packages
from openenv.runtime.process import LocalProcessProvider, app_of_package

__all__ = [
    "Bootstrap",
    "DockerProvider",
    "EnvNotFound",
    "EnvPackage",
    "LocalProcessProvider",
    "Provider",
    "ProviderError",
    "app_of_package",
    "find_env_package",
    "launch_client",
    "list_env_packages",
]


def __getattr__(name: str):
    if name == "DockerProvider":
        from openenv.runtime.docker_provider import DockerProvider

        return DockerProvider
    raise AttributeError(f"module 'openenv.runtime' has no attribute {name!r}")
