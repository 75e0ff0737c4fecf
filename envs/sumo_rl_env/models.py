"""Wire types of SUMO traffic-signal control, shared by its client and its server.

Field names follow the reference ``sumo_rl_env`` (``SumoAction(phase_id=..., ts_id=...)``;
``observation``, ``observation_shape``, ``action_mask``, ``sim_time``) so code written for it
works here; the named fields (``phase``, ``density``, ``queue``, ``time``, ...) say the same
numbers by name.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from openenv.core import Action, Observation, State


class SumoAction(Action):
    """The next green phase of one traffic light, of every light, or of several by name.

    ``phases`` (``{"1": 0, "2": 3}``) sets each named light; otherwise ``phase_id`` goes to the
    light ``ts_id``, or to every light when ``ts_id`` is ``None``. A light that is not named
    keeps its current green phase.
    """

    phase_id: int | None = Field(
        default=None, description="Index of the next green phase (0 to num_phases - 1)"
    )
    ts_id: str | None = Field(
        default=None, description="The traffic light phase_id is for; None: every light"
    )
    phases: dict[str, int] | None = Field(
        default=None, description="Next green phase per traffic light id (instead of phase_id)"
    )


class TrafficLight(BaseModel):
    """One traffic light as its agent sees it (sumo-rl's default observation, by name)."""

    id: str = Field(description="The traffic light's id in the network")
    phase: int = Field(description="Index of its current green phase")
    phase_names: list[str] = Field(description="What each green phase lets through")
    min_green: bool = Field(
        description="True once min_green + yellow_time seconds passed since the last change "
        "(before that a new phase is not taken yet)"
    )
    signal: str = Field(description="SUMO's signal string now, one of G/g/y/r per link")
    lanes: list[str] = Field(description="Its incoming lanes, in the order of density/queue")
    density: list[float] = Field(description="Vehicles per incoming lane / lane capacity, 0..1")
    queue: list[float] = Field(description="Halted vehicles per incoming lane / capacity, 0..1")


class SumoObservation(Observation):
    observation: list[float] = Field(
        default_factory=list,
        description="sumo-rl's vector, light after light: phase one-hot, min_green, lane "
        "densities, lane queues",
    )
    observation_shape: list[int] = Field(default_factory=list, description="[len(observation)]")
    action_mask: list[int] = Field(
        default_factory=list, description="Valid phase_id values (of the light with fewest)"
    )
    sim_time: float = Field(default=0.0, description="Simulated seconds (same as time)")
    time: float = Field(default=0.0, description="Simulated seconds since the start")
    phase: dict[str, int] = Field(default_factory=dict, description="Green phase per light")
    density: dict[str, float] = Field(default_factory=dict, description="Density per lane")
    queue: dict[str, float] = Field(default_factory=dict, description="Queue per lane")
    traffic_lights: list[TrafficLight] = Field(
        default_factory=list, description="Every light: phase, lanes, density, queue"
    )
    vehicles: int = Field(default=0, description="Vehicles in the network now")
    waiting_time: float = Field(
        default=0.0, description="Accumulated waiting seconds of the vehicles at the lights"
    )
    mean_speed: float = Field(default=0.0, description="Mean speed of the vehicles (m/s)")
    message: str = Field(default="", description="What happened")


class SumoState(State):
    net: str = "single-intersection"
    net_file: str = Field(default="", description="The network file (in the package)")
    route_file: str = Field(default="", description="The demand file (in the package)")
    num_seconds: int = 20000
    delta_time: int = 5
    yellow_time: int = 2
    min_green: int = 5
    max_green: int = 50
    reward_fn: str = "diff-waiting-time"
    sim_time: float = 0.0
    total_vehicles: int = 0
    total_waiting_time: float = 0.0
    mean_waiting_time: float = 0.0
    mean_speed: float = 0.0
    episode_score: float = 0.0
