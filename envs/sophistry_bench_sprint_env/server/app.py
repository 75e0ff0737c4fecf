"""Sophistry Bench sprint server: ``uvicorn sophistry_bench_sprint_env.server.app:app``."""

from openenv.server import create_app
from sophistry_bench_sprint_env.server.environment import SophistryBenchSprintEnvironment

app = create_app(SophistryBenchSprintEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
