# models.py
from pydantic import BaseModel

class MyAction(BaseModel):
    command: str

class MyObservation(BaseModel):
    result: str
    reward: float
    done: bool

class MyState(BaseModel):
    episode_id: str
    step_count: int

# client.py
from openenv.core import EnvClient, StepResult

class MyEnv(EnvClient[MyAction, MyObservation, MyState]):
    def _step_payload(self, action: MyAction) -> dict:
        return action.model_dump()

    def _parse_result(self, payload: dict) -> StepResult[MyObservation]:
        obs = MyObservation(**payload["observation"])
        return StepResult(observation=obs, reward=obs.reward, done=obs.done)

    def _parse_state(self, payload: dict) -> MyState:
        return MyState(**payload)

# server/my_environment.py
from openenv.core.env_server import Environment

class MyEnvironment(Environment[MyAction, MyObservation, MyState]):
    def reset(self, seed=None, episode_id=None) -> MyObservation:
        ...

    def step(self, action: MyAction) -> MyObservation:
        ...

    @property
    def state(self) -> MyState:
        ...
