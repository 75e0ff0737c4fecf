"""dm_control server: ``uvicorn dm_control_env.server.app:app``.

Pick the task served by default with ``DMCONTROL_DOMAIN=walker DMCONTROL_TASK=walk``.
"""

from dm_control_env.server.environment import DMControlEnvironment, default
from dm_control_env.server.forms import action_model
from openenv.server import create_app

app = create_app(DMControlEnvironment, action_model(default("domain_name"), default("task_name")))


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
