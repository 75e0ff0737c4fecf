"""2048 server: ``uvicorn game_2048_env.server.app:app``."""

from game_2048_env.server.environment import Game2048Environment
from openenv.server import create_app

app = create_app(Game2048Environment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
