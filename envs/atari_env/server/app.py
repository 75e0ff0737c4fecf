"""Atari server: ``uvicorn atari_env.server.app:app`` (configure with ``ATARI_*`` variables)."""

from atari_env.server.environment import AtariEnvironment
from openenv.server import create_app

app = create_app(AtariEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
