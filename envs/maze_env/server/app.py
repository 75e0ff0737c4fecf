"""Maze server: ``uvicorn maze_env.server.app:app``."""

from maze_env.server.environment import MazeEnvironment
from openenv.server import create_app

app = create_app(MazeEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
