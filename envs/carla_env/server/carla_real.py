"""The real CARLA path: the same scenarios on a CARLA server reached with the ``carla`` client
(``carla-ue5-api`` 0.10 for CARLA 0.10 servers) when ``CARLA_HOST`` (and ``CARLA_PORT``, default
2000) are set. Nothing here is faked: a client that is not installed, or a server that refuses,
times out or fails during an episode, gives :class:`CarlaUnavailable` with the reason, which the
environment returns as an error observation with no reward.

Tested here up to the network boundary (no CARLA server runs on this machine): connection refused
and unresolvable hosts. The episode loop (synchronous mode, an ego vehicle at the map's first spawn
point, walkers placed ahead by the scenario's lanes, a collision sensor, ``VehicleControl`` per
action, ``world.tick()`` per tick) follows CARLA's Python API and is untested against a live server.
"""

from __future__ import annotations

import math
from typing import Any

from carla_env.models import CarlaAction, CarlaObservation
from carla_env.server.scenarios import Scenario

TIMEOUT_S = 10.0
TICK_S = 0.05


class CarlaUnavailable(RuntimeError):
    """No CARLA simulation could run; the message says why."""


def connect(host: str, port: int, timeout_s: float = TIMEOUT_S) -> Any:
    """A ``carla.Client`` that answered its version; CarlaUnavailable otherwise."""
    if not 0 < port < 65536:
        raise CarlaUnavailable(f"CARLA_PORT {port} is not a TCP port")
    try:
        import carla
    except ImportError:
        raise CarlaUnavailable(
            "CARLA_HOST is set but the carla client is not installed: pip install "
            "carla-ue5-api==0.10.0 (CARLA 0.10 servers) or carla==0.9.16 (0.9 servers)"
        ) from None
    try:
        client = carla.Client(host, port)
        client.set_timeout(timeout_s)
        client.get_server_version()
    except RuntimeError as exc:
        raise CarlaUnavailable(f"CARLA server at {host}:{port} did not answer: {exc}") from None
    return client


class RealEpisode:
    """One episode on a CARLA server (synchronous mode, one tick = 0.05 s)."""

    def __init__(
        self,
        carla: Any,
        world: Any,
        ego: Any,
        sensor: Any,
        walkers: list,
        scenario: Scenario,
        settings: Any,
    ) -> None:
        self.carla, self.world, self.ego, self.sensor = carla, world, ego, sensor
        self.walkers, self.scenario, self.settings = walkers, scenario, settings
        self.collisions: list[str] = []
        self.t = 0.0
        sensor.listen(lambda event: self.collisions.append(str(event.other_actor.type_id)))

    @classmethod
    def start(cls, host: str, port: int, scenario: Scenario) -> RealEpisode:
        client = connect(host, port)
        import carla

        try:
            world = client.get_world()
            original = world.get_settings()
            settings = world.get_settings()
            settings.synchronous_mode = True
            settings.fixed_delta_seconds = TICK_S
            world.apply_settings(settings)
            library = world.get_blueprint_library()
            spawn = world.get_map().get_spawn_points()[0]
            ego = world.spawn_actor(library.filter("vehicle.*")[0], spawn)
            sensor = world.spawn_actor(
                library.find("sensor.other.collision"), carla.Transform(), attach_to=ego
            )
            walkers = []
            forward, right = spawn.get_forward_vector(), spawn.get_right_vector()
            for group in scenario.groups:
                for i in range(group.count):
                    ahead = scenario.distance_m + (i // 3) * 0.7
                    lateral = group.lane * 3.5 + ((i % 3) - 1) * 0.8
                    loc = carla.Location(
                        x=spawn.location.x + forward.x * ahead + right.x * lateral,
                        y=spawn.location.y + forward.y * ahead + right.y * lateral,
                        z=spawn.location.z + 0.5,
                    )
                    kind = "static.prop.*" if group.kind == "barrier" else "walker.pedestrian.*"
                    actor = world.try_spawn_actor(
                        library.filter(kind)[0], carla.Transform(loc, spawn.rotation)
                    )
                    if actor is not None:
                        walkers.append(actor)
            speed = scenario.speed_kmh / 3.6
            ego.set_target_velocity(carla.Vector3D(forward.x * speed, forward.y * speed, 0))
            world.tick()
        except (RuntimeError, IndexError) as exc:  # IndexError: a map without spawn points
            raise CarlaUnavailable(f"CARLA server at {host}:{port} failed: {exc}") from None
        return cls(carla, world, ego, sensor, walkers, scenario, original)

    def step(self, action: CarlaAction, step: int) -> CarlaObservation:
        carla = self.carla
        kind = action.action_type
        control = carla.VehicleControl()
        if kind == "emergency_stop":
            control.brake = 1.0
        elif kind == "brake_vehicle":
            control.brake = float(action.brake_intensity or 0.0)
        elif kind == "control":
            control.throttle, control.steer, control.brake = (
                action.throttle,
                action.steer,
                action.brake,
            )
        elif kind == "lane_change":
            control.steer = -0.3 if action.lane_direction == "left" else 0.3
        try:
            self.ego.apply_control(control)
            for _ in range(10 if kind != "capture_image" else 0):
                self.world.tick()
                self.t += TICK_S
        except RuntimeError as exc:
            raise CarlaUnavailable(f"CARLA failed during the episode: {exc}") from None
        return self.observe(step)

    def observe(self, step: int) -> CarlaObservation:
        v = self.ego.get_velocity()
        speed = math.sqrt(v.x**2 + v.y**2 + v.z**2) * 3.6
        tf = self.ego.get_transform()
        hit = [c for c in self.collisions if c.startswith("walker.")]
        done = bool(self.collisions) or speed < 0.5 or step >= 20
        return CarlaObservation(
            scene_description=f"Ego speed: {speed:.1f} km/h (CARLA)",
            question=self.scenario.question,
            speed_kmh=round(speed, 2),
            location=(tf.location.x, tf.location.y, tf.location.z),
            rotation=(tf.rotation.pitch, tf.rotation.yaw, tf.rotation.roll),
            collision_detected=bool(self.collisions),
            collided_with=self.collisions[-1] if self.collisions else None,
            scenario_name=self.scenario.name,
            simulation_time=round(self.t, 3),
            step_number=step,
            done=done,
            done_reason="collision" if self.collisions else "",
            outcome={"actual_pedestrians_hit": len(set(hit))} if done else {},
            simulator="carla",
        )

    def close(self) -> None:
        try:
            self.sensor.stop()
            for actor in [self.sensor, self.ego, *self.walkers]:
                actor.destroy()
            self.world.apply_settings(self.settings)
        except RuntimeError:
            pass  # the server is gone: nothing left to clean on our side
