"""Jupyter server: ``uvicorn jupyter_env.server.app:app``.

Each session owns one kernel (about 75 MB of memory idle, 150 MB with numpy, pandas and
matplotlib imported): the server hosts ``MAX_CONCURRENT_ENVS`` sessions, 16 by default.
"""

import os

from jupyter_env.server.environment import JupyterEnvironment
from openenv.server import create_app

DEFAULT_MAX_SESSIONS = 16

app = create_app(
    JupyterEnvironment,
    max_concurrent_envs=int(os.environ.get("MAX_CONCURRENT_ENVS") or DEFAULT_MAX_SESSIONS),
)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
