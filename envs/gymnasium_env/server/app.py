"""Gymnasium server: ``GYM_ENV_ID=MountainCar-v0 uvicorn gymnasium_env.server.app:app``."""

from gymnasium_env.server.environment import GymnasiumEnvironment, default_env_id
from gymnasium_env.server.forms import action_model
from openenv.server import create_app

app = create_app(GymnasiumEnvironment, action_model(default_env_id()))


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
