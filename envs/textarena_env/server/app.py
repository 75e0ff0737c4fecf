"""TextArena server: ``uvicorn textarena_env.server.app:app``."""

from openenv.server import create_app
from textarena_env.server.environment import TextArenaEnvironment

app = create_app(TextArenaEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
