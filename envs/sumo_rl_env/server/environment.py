"""Traffic-signal control in SUMO: pick the next green phase of each light every few seconds.

Actions: ``SumoAction(phase_id=i)`` (every light, or the light ``ts_id``) or
``SumoAction(phases={"1": 0, "2": 3})``. A light switches through a yellow phase
(``yellow_time``) and keeps a green at least ``min_green`` seconds: a request made before then
is held, as in sumo-rl. An unknown light or phase index is refused (nothing runs).

Each step runs ``delta_time`` simulated seconds. Observation: sumo-rl's vector
(``observation``) and the same numbers by name (phase, density and queue per lane, ``time``).
Reward: sumo-rl's ``diff-waiting-time`` by default, with queue, waiting time, pressure and
average speed as components (``rubrics.py``). The episode ends after ``num_seconds``.

Reset options: ``net`` (``single-intersection`` or ``grid2x2``), ``delta_time``,
``yellow_time``, ``min_green``, ``num_seconds``, ``reward_fn``; ``seed`` is SUMO's ``--seed``,
which draws every departure of the probabilistic flows, so a seed replays its episode exactly.
"""

from __future__ import annotations

import statistics
import uuid
from typing import Annotated

from pydantic import Field

from openenv.core import ActionChoice, Environment, Svg
from openenv.core.errors import InvalidAction
from sumo_rl_env.models import SumoAction, SumoObservation, SumoState, TrafficLight
from sumo_rl_env.server import drawing
from sumo_rl_env.server.network import NetName, load, phase_names
from sumo_rl_env.server.rubrics import RewardFn, sumo_rubric
from sumo_rl_env.server.simulation import Simulation, Timing, TrafficSignal

MAX_SECONDS = 20_000  # sumo-rl's default episode, the longest a visitor may ask for


class SumoEnvironment(Environment[SumoAction, SumoObservation, SumoState]):
    """One SUMO process per session (started by ``reset``, ended by ``close``)."""

    how_to_play = (
        "Choose which green phase the traffic light shows next; fewer cars waiting means "
        "a better reward."
    )

    def __init__(self, *, subscribed: bool = True) -> None:
        """``subscribed=False``: sumo-rl reads every value from SUMO (slower; for checks)."""
        self._subscribed = subscribed
        self._sim: Simulation | None = None
        self._state = SumoState()
        self._names: dict[str, list[str]] = {}
        self._signals: dict[str, str] = {}
        self._measures: dict[str, float] = {}
        self.rubric = sumo_rubric(lambda: self._measures, "diff-waiting-time")

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        net: NetName = "single-intersection",
        delta_time: Annotated[int, Field(ge=2, le=60, description="seconds per step")] = 5,
        yellow_time: Annotated[int, Field(ge=1, le=10)] = 2,
        min_green: Annotated[int, Field(ge=0, le=60)] = 5,
        num_seconds: Annotated[
            int, Field(ge=1, le=MAX_SECONDS, description="simulated seconds per episode")
        ] = MAX_SECONDS,
        reward_fn: RewardFn = "diff-waiting-time",
    ) -> SumoObservation:
        if delta_time <= yellow_time:
            raise InvalidAction(
                f"delta_time ({delta_time}) must be longer than yellow_time ({yellow_time})"
            )
        timing = Timing(delta_time, yellow_time, min_green, 50, num_seconds)
        self._end_simulation()
        network = load(net)
        self._sim = Simulation(network, self.seed, timing, subscribed=self._subscribed)
        self._names = {
            ts: phase_names(network.links.get(ts, ()), [p.state for p in signal.green_phases])
            for ts, signal in self._sim.signals.items()
        }
        self._measures = {}
        self.rubric = sumo_rubric(lambda: self._measures, reward_fn)
        self._state = SumoState(
            episode_id=episode_id or str(uuid.uuid4()),
            net=net,
            net_file=network.net_file.name,
            route_file=network.route_file.name,
            num_seconds=num_seconds,
            delta_time=delta_time,
            yellow_time=yellow_time,
            min_green=min_green,
            reward_fn=reward_fn,
        )
        lights = ", ".join(self._sim.signals)
        return self._observe(f"{network.name}: traffic lights {lights}. Choose green phases.")

    def step(self, action: SumoAction) -> SumoObservation:
        sim = self._running()
        phases = self._requested(action)
        before = {ts: signal.green_phase for ts, signal in sim.signals.items()}
        sim.step(phases)
        self._measures = self._measure()
        self._state.step_count += 1
        weights = self.rubric.weights
        self._state.episode_score += sum(weights[k] * v for k, v in self._measures.items())
        done = sim.done
        message = self._describe(phases, before) + (" Time is up." if done else "")
        return self._observe(message, done=done)

    @property
    def state(self) -> SumoState:
        return self._state

    def close(self) -> None:
        self._end_simulation()

    def _end_simulation(self) -> None:
        sim, self._sim = self._sim, None
        if sim is not None:
            sim.close()

    def legal_actions(self) -> list[ActionChoice]:
        if self._sim is None or self._sim.done:
            return []
        if len(self._names) == 1:
            (names,) = self._names.values()
            return [
                ActionChoice(name, {"phase_id": i}, key=str(i + 1) if i < 9 else None)
                for i, name in enumerate(names)
            ]
        return [
            ActionChoice(f"Light {ts}: {name}", {"phase_id": i, "ts_id": ts})
            for ts, names in self._names.items()
            for i, name in enumerate(names)
        ] + self._all_lights_choices()

    def render(self) -> Svg | None:
        if self._sim is None:
            return None
        s = self._state
        vehicles = self._sim.vehicles()
        caption = f"t = {s.sim_time:.0f} s · {len(vehicles)} vehicles"
        caption += f" · waiting {s.total_waiting_time:.0f} s"
        if len(self._names) == 1:
            ((ts, signal),) = self._sim.signals.items()
            caption += f" · {self._names[ts][signal.green_phase]}"
        markup = drawing.draw(self._sim.network, vehicles, self._signals, caption)
        return Svg(markup)

    # -- internals ------------------------------------------------------------------------

    def _running(self) -> Simulation:
        if self._sim is None:  # closed by the server; the base class catches a missing reset
            raise InvalidAction("the simulation was closed: call reset() to start a new one")
        return self._sim

    def _requested(self, action: SumoAction) -> dict[str, int]:
        """The phase per light the action asks for, checked before anything runs."""
        signals = self._running().signals
        if action.phases is not None and action.phase_id is not None:
            raise InvalidAction("give either phase_id (with ts_id) or phases, not both")
        if action.phases is not None:
            wanted = dict(action.phases)
        elif action.phase_id is None:
            raise InvalidAction("give phase_id (the next green phase) or phases={light: phase}")
        elif action.ts_id is None:
            wanted = dict.fromkeys(signals, action.phase_id)
        else:
            wanted = {action.ts_id: action.phase_id}
        for ts_id, phase in wanted.items():
            if ts_id not in signals:
                raise InvalidAction(
                    f"unknown traffic light {ts_id!r}; the lights are {', '.join(signals)}"
                )
            count = signals[ts_id].num_green_phases
            if not 0 <= phase < count:
                raise InvalidAction(
                    f"light {ts_id} has green phases 0 to {count - 1} "
                    f"({', '.join(self._names[ts_id])}); got {phase}"
                )
        return wanted

    def _measure(self) -> dict[str, float]:
        """Every component, over all lights (diff-waiting-time first: it updates the memory)."""
        signals = list(self._running().signals.values())
        fns = TrafficSignal.reward_fns
        diff = sum(fns["diff-waiting-time"](signal) for signal in signals)
        return {
            "diff_waiting_time": diff,
            "waiting_time": -sum(signal.last_measure for signal in signals),
            "queue": float(sum(fns["queue"](signal) for signal in signals)),
            "pressure": float(sum(fns["pressure"](signal) for signal in signals)),
            "average_speed": statistics.fmean(fns["average-speed"](s) for s in signals),
        }

    def _describe(self, phases: dict[str, int], before: dict[str, int]) -> str:
        sim = self._running()
        said = []
        for ts_id, phase in phases.items():
            now = sim.signals[ts_id].green_phase
            name = self._names[ts_id][phase]
            if now == phase and before[ts_id] != phase:
                said.append(f"{ts_id}: switching to {name}.")
            elif now != phase:
                kept = self._names[ts_id][now]
                said.append(f"{ts_id}: {name} waits for min_green; keeps {kept}.")
        return " ".join(said) or "Phases kept."

    def _observe(self, message: str, done: bool = False) -> SumoObservation:
        sim = self._running()
        self._signals = sim.signal_states()
        lights = [self._light(ts_id, signal) for ts_id, signal in sim.signals.items()]
        vector = [v for light in lights for v in _vector(light, len(light.phase_names))]
        vehicles = sim.vehicles()
        speeds = [speed for _x, _y, speed in vehicles]
        waiting = 100.0 * sum(signal.last_measure for signal in sim.signals.values())
        s = self._state
        s.sim_time = sim.time
        s.total_vehicles = len(vehicles)
        s.total_waiting_time = waiting
        s.mean_waiting_time = waiting / len(vehicles) if vehicles else 0.0
        s.mean_speed = statistics.fmean(speeds) if speeds else 0.0
        fewest = min(len(names) for names in self._names.values())
        return SumoObservation(
            observation=vector,
            observation_shape=[len(vector)],
            action_mask=list(range(fewest)),
            sim_time=s.sim_time,
            time=s.sim_time,
            phase={light.id: light.phase for light in lights},
            density=_per_lane(lights, "density"),
            queue=_per_lane(lights, "queue"),
            traffic_lights=lights,
            vehicles=len(vehicles),
            waiting_time=round(waiting, 6),
            mean_speed=round(s.mean_speed, 6),
            message=message,
            reward=0.0,  # on steps the base class puts the rubric's score here
            done=done,
        )

    def _light(self, ts_id: str, signal: TrafficSignal) -> TrafficLight:
        return TrafficLight(
            id=ts_id,
            phase=signal.green_phase,
            phase_names=self._names[ts_id],
            min_green=signal.time_since_last_phase_change >= signal.min_green + signal.yellow_time,
            signal=self._signals.get(ts_id, ""),
            lanes=list(signal.lanes),
            density=[float(d) for d in signal.get_lanes_density()],
            queue=[float(q) for q in signal.get_lanes_queue()],
        )

    def _all_lights_choices(self) -> list[ActionChoice]:
        """On a grid whose lights share their phases: one button sets every light."""
        named = list(self._names.values())
        if any(names != named[0] for names in named):
            return []
        return [
            ActionChoice(f"All lights: {name}", {"phase_id": i}) for i, name in enumerate(named[0])
        ]


def _vector(light: TrafficLight, phases: int) -> list[float]:
    """sumo-rl's default observation of one light: phase one-hot, min_green, density, queue."""
    one_hot = [1.0 if light.phase == i else 0.0 for i in range(phases)]
    return [*one_hot, float(light.min_green), *light.density, *light.queue]


def _per_lane(lights: list[TrafficLight], field: str) -> dict[str, float]:
    return {
        lane: value
        for light in lights
        for lane, value in zip(light.lanes, getattr(light, field), strict=True)
    }
