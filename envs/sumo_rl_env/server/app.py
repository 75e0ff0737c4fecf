"""SUMO traffic-signal server: ``uvicorn sumo_rl_env.server.app:app``.

Each session runs its own SUMO process (about 15 MB of its own, 50 MB resident);
``MAX_CONCURRENT_ENVS`` (default ``DEFAULT_MAX_SESSIONS`` here) bounds how many run at once.
"""

import os

from openenv.server import create_app
from sumo_rl_env.server.environment import SumoEnvironment

DEFAULT_MAX_SESSIONS = 16

app = create_app(
    SumoEnvironment,
    max_concurrent_envs=int(os.environ.get("MAX_CONCURRENT_ENVS") or DEFAULT_MAX_SESSIONS),
)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
