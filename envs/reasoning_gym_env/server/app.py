"""Reasoning gym server: ``uvicorn reasoning_gym_env.server.app:app`` (``reasoning_gym`` extra)."""

from openenv.server import create_app
from reasoning_gym_env.server.environment import ReasoningGymEnvironment

app = create_app(ReasoningGymEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
