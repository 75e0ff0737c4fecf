"""Chess server: ``uvicorn chess_env.server.app:app``."""

from chess_env.server.environment import ChessEnvironment
from openenv.server import create_app

app = create_app(ChessEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
