"""Calendar server: ``uvicorn calendar_env.server.app:app``."""

from calendar_env.server.environment import CalendarEnvironment
from openenv.server import create_app

# Every session gets its own CalendarEnvironment, hence its own in-memory database.
app = create_app(CalendarEnvironment)  # a tool env: /mcp and the playground's Tools tab


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
