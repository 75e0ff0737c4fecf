# server/app.py
from openenv.core.env_server import create_app
from .my_environment import MyEnvironment
from ..models import MyAction, MyObservation

env = MyEnvironment()
app = create_app(env, MyAction, MyObservation)
