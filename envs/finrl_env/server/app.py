"""FinRL server: ``uvicorn finrl_env.server.app:app`` (``FINRL_DATA_CSV=prices.csv`` to trade
a CSV of the operator's instead of synthetic markets)."""

from typing import Any

from finrl_env.server.environment import FinRLEnvironment, default_config
from openenv.server import create_app

app = create_app(FinRLEnvironment)


@app.get("/config", tags=["environment"])
def config() -> dict[str, Any]:
    """The default configuration: what a reset without options plays (as the reference)."""
    return default_config()


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
