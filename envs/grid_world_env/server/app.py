"""Grid world server: ``uvicorn grid_world_env.server.app:app``."""

from grid_world_env.server.environment import GridWorldEnvironment
from openenv.server import create_app

app = create_app(GridWorldEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
