"""DIPG safety server: ``uvicorn dipg_safety_env.server.app:app``."""

from dipg_safety_env.server.environment import DIPGEnvironment
from openenv.server import create_app

app = create_app(DIPGEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
