"""Wire types of the CARLA env (the documented ``CarlaAction`` / ``CarlaObservation``), shared by
its client and its server. The same types serve both simulators: our own kinematic simulator
(the default) and a real CARLA server reached through the ``carla`` client (``CARLA_HOST``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from openenv.core import Action, Observation, State

ActionType = Literal[
    "observe",
    "emergency_stop",
    "lane_change",
    "control",
    "brake_vehicle",
    "maintain_speed",
    "init_navigation_agent",
    "set_destination",
    "follow_route",
    "capture_image",
]


class CarlaAction(Action):
    """One decision of the driver. Unused fields are ignored by the other action types."""

    action_type: ActionType = Field(default="observe", description="What the vehicle does")
    throttle: float = Field(default=0.0, ge=0.0, le=1.0, description="control: throttle")
    steer: float = Field(default=0.0, ge=-1.0, le=1.0, description="control: steering")
    brake: float = Field(default=0.0, ge=0.0, le=1.0, description="control: brake")
    lane_direction: Literal["left", "right"] | None = Field(
        default=None, description="lane_change: left or right"
    )
    target_lane_id: str | None = Field(
        default=None, max_length=16, description="lane_change: a lane by name, e.g. lane_-1"
    )
    target_speed_kmh: float | None = Field(
        default=None, ge=0.0, le=200.0, description="maintain_speed: cruise speed"
    )
    brake_intensity: float | None = Field(
        default=None, ge=0.0, le=1.0, description="brake_vehicle: 0 none .. 1 full"
    )
    navigation_behavior: Literal["cautious", "normal", "aggressive"] = Field(
        default="normal", description="init_navigation_agent: driving style"
    )
    destination_x: float | None = Field(default=None, ge=-10000.0, le=10000.0)
    destination_y: float | None = Field(default=None, ge=-10000.0, le=10000.0)
    destination_z: float = Field(default=0.0, ge=-1000.0, le=1000.0)
    route_steps: int = Field(default=1, ge=1, le=200, description="follow_route: ticks to drive")


class CarlaObservation(Observation):
    """What the driver sees: a text scene for an LLM plus the numbers behind it."""

    scene_description: str = Field(default="", description="The scene in words")
    question: str = Field(default="", description="The scenario's dilemma or task")
    speed_kmh: float = Field(default=0.0)
    location: tuple[float, float, float] = Field(default=(0.0, 0.0, 0.0))
    rotation: tuple[float, float, float] = Field(
        default=(0.0, 0.0, 0.0), description="pitch, yaw, roll"
    )
    current_lane: str = Field(default="unknown")
    nearby_actors: list[dict[str, Any]] = Field(default_factory=list)
    collision_detected: bool = Field(default=False)
    collision_intensity: float = Field(default=0.0)
    collided_with: str | None = Field(default=None)
    scenario_name: str = Field(default="")
    simulation_time: float = Field(default=0.0)
    step_number: int = Field(default=0)
    done_reason: str = Field(default="")
    goal_distance: float | None = Field(default=None, description="Navigation: metres to goal")
    goal_direction: str | None = Field(default=None)
    rubric_reward: float = Field(default=0.0, description="Terminal (trolley) or per-step reward")
    outcome: dict[str, Any] = Field(
        default_factory=dict, description="Trolley scenarios: the outcome and ethical metrics"
    )
    camera_image: str | None = Field(default=None, description="Real CARLA only: base64 JPEG")
    simulator: str = Field(default="", description="Which simulator produced this observation")
    error: str = Field(default="", description="Why the last action or reset did not run")


class CarlaState(State):
    scenario_name: str = "trolley_saves"
    town: str = "kinematic straight road"
    weather: str = "ClearNoon"
    simulator: str = "kinematic"
    total_distance: float = 0.0
    total_reward: float = 0.0
    simulation_time: float = 0.0
    collisions: list[dict[str, Any]] = Field(default_factory=list)
    scenario_data: dict[str, Any] = Field(default_factory=dict)
