"""Starting environment servers for a client: local processes and containers
(``openenv.runtime``), Spaces (``openenv.hub``), installed packages (``openenv.core.registry``).

It imports no client module: it is handed the client (or pool) class to build, so the client's
documented entry points (``<Name>Env.from_docker_image``, ``<Name>Env.from_env``,
``EnvPool.launch``) call into it without a cycle, and ``AutoEnv`` finds an environment's client
class through the registry.

- :func:`launch_client` binds a provider (a local process, a Docker container) to a typed client
  that stops it on close; :class:`Bootstrap` is the lazy handle ``await``-ed or ``.sync()``-ed.
- :func:`from_docker_image` and :func:`from_space` are what ``<Name>Env.from_docker_image`` and
  ``<Name>Env.from_env`` do (those class methods are thin entry points into this package).
- :class:`AutoEnv` / :class:`AutoAction` find an installed environment by name.
- :func:`provider_for` makes the provider of an environment package; :func:`launch_pool` starts
  the servers of an :class:`~openenv.client.pool.EnvPool`.
"""

from openenv.launch.auto import AutoAction, AutoEnv
from openenv.launch.bootstrap import DEFAULT_START_TIMEOUT_S, Bootstrap, launch_client
from openenv.launch.servers import from_docker_image, from_space, launch_pool, provider_for

__all__ = [
    "DEFAULT_START_TIMEOUT_S",
    "AutoAction",
    "AutoEnv",
    "Bootstrap",
    "from_docker_image",
    "from_space",
    "launch_client",
    "launch_pool",
    "provider_for",
]
