"""Connect Four server: ``uvicorn connect4_env.server.app:app``."""

from connect4_env.server.environment import Connect4Environment
from openenv.server import create_app

app = create_app(Connect4Environment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
