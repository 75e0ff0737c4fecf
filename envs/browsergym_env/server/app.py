"""BrowserGym server: ``uvicorn browsergym_env.server.app:app`` (``BROWSERGYM_*`` variables).

At most ``MAX_CONCURRENT_ENVS`` sessions (default 8: each holds a browser context and a
Playwright connection, about 100 MB; see the README).
"""

import os

from browsergym_env.server.environment import BrowserGymEnvironment
from openenv.server import create_app

DEFAULT_MAX_SESSIONS = 8

app = create_app(
    BrowserGymEnvironment,
    max_concurrent_envs=int(os.environ.get("MAX_CONCURRENT_ENVS") or DEFAULT_MAX_SESSIONS),
)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
