"""Wildfire server: ``uvicorn wildfire_env.server.app:app``."""

from openenv.server import create_app
from wildfire_env.server.environment import WildfireEnvironment

app = create_app(WildfireEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
