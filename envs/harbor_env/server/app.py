"""Harbor server: ``uvicorn harbor_env.server.app:app``.

The shipped tasks (split ``shipped``) with no model endpoint: a rollout without ``llm_url``
runs on the scripted TEST engine. ``openenv harbor serve --llm-url URL --dataset ...`` serves
your datasets against your model.
"""

from harbor_env.server.environment import HarborEnvironment
from openenv.harbor.app import create_harbor_app
from openenv.harbor.tools import default_service

app = create_harbor_app(default_service(), env_cls=HarborEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
