"""The standalone server (``uvicorn server.app:app`` from this folder)."""

from openenv_core.env_server.http_server import create_app

try:
    from ..models import WalkAction, WalkObservation
    from .walk_environment import WalkEnvironment
except ImportError:
    from models import WalkAction, WalkObservation

    from server.walk_environment import WalkEnvironment

app = create_app(WalkEnvironment, WalkAction, WalkObservation, env_name="walk")
