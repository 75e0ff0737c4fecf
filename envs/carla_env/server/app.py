"""CARLA env server: ``uvicorn carla_env.server.app:app`` (our kinematic simulator; set
``CARLA_HOST``/``CARLA_PORT`` to drive a real CARLA server instead)."""

from carla_env.server.environment import CarlaEnvironment
from openenv.server import create_app

app = create_app(CarlaEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
