"""OpenSpiel server: ``uvicorn openspiel_env.server.app:app`` (needs the ``openspiel`` extra)."""

from openenv.server import create_app
from openspiel_env.server.environment import OpenSpielEnvironment

app = create_app(OpenSpielEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
