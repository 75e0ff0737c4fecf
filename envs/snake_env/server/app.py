"""Snake server: ``uvicorn snake_env.server.app:app``."""

from openenv.server import create_app
from snake_env.server.environment import SnakeEnvironment

app = create_app(SnakeEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
