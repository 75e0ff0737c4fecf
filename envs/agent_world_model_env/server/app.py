"""Agent World Model server: ``uvicorn agent_world_model_env.server.app:app``."""

from agent_world_model_env.server.environment import AgentWorldModelEnvironment
from openenv.server import create_app

# Every session gets its own environment, hence its own in-memory database.
app = create_app(AgentWorldModelEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
