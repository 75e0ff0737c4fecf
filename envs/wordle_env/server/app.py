"""Wordle server: ``uvicorn wordle_env.server.app:app``."""

from openenv.server import create_app
from wordle_env.server.environment import WordleEnvironment

app = create_app(WordleEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
