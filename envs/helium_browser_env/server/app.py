"""Helium browser server: ``uvicorn helium_browser_env.server.app:app``.

At most ``MAX_CONCURRENT_ENVS`` sessions (default 4): each holds its own Chromium and
chromedriver, about 150-250 MB.
"""

import os

from helium_browser_env.server.environment import HeliumBrowserEnvironment
from openenv.server import create_app

DEFAULT_MAX_SESSIONS = 4

app = create_app(
    HeliumBrowserEnvironment,
    max_concurrent_envs=int(os.environ.get("MAX_CONCURRENT_ENVS") or DEFAULT_MAX_SESSIONS),
)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
