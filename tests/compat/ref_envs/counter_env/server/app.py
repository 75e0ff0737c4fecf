"""The server, as ``openenv`` 0.10's package-mode envs write it (``uvicorn server.app:app``
from the folder, or ``counter_env.server.app:app`` installed)."""

from openenv.core.env_server.http_server import create_app

try:
    from ..models import CounterAction, CounterObservation
    from .counter_environment import CounterEnvironment
except ImportError:
    from models import CounterAction, CounterObservation
    from server.counter_environment import CounterEnvironment

app = create_app(
    CounterEnvironment,
    CounterAction,
    CounterObservation,
    env_name="counter_env",
    max_concurrent_envs=4,
)


def main():
    import uvicorn

    uvicorn.run(app, host="0.0.0.0", port=8000)


if __name__ == "__main__":
    main()
