"""One SUMO process per session, driven over TraCI with sumo-rl's own ``TrafficSignal``.

Why a process and not libsumo: libsumo runs SUMO inside the Python process and holds one
simulation per process, so concurrent sessions would share it. Each :class:`Simulation` starts
its own ``sumo`` (from the ``eclipse-sumo`` wheel) on a free loopback port and talks to it
through an unlabelled ``traci`` connection (not in traci's global pool, so sessions in different
worker threads never meet). SUMO quits when its connection closes, also when the server dies.

The control logic is sumo-rl's (``sumo_rl.environment.traffic_signal.TrafficSignal``): it builds
the yellow transitions, enforces ``min_green`` and computes the observation and the rewards.
``_Host`` is the small part of sumo-rl's ``SumoEnvironment`` it reads. The step loop below
mirrors ``SumoEnvironment.step`` (apply actions, run until a light must act again).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from dataclasses import dataclass
from typing import Any

import sumo

os.environ.setdefault("SUMO_HOME", sumo.SUMO_HOME)  # sumo-rl refuses to import without it

import traci
import traci.constants as tc
from sumo_rl.environment.observations import DefaultObservationFunction
from sumo_rl.environment.traffic_signal import TrafficSignal

from sumo_rl_env.server.network import Network
from sumo_rl_env.server.subscribed import SubscribedConnection

SUMO_BINARY = os.path.join(sumo.SUMO_HOME, "bin", "sumo")
CONNECT_RETRIES = 400  # x 25 ms: SUMO loads these small networks in well under a second
CONNECT_WAIT_S = 0.025
CLOSE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Timing:
    """sumo-rl's timing parameters, in simulated seconds."""

    delta_time: int = 5
    yellow_time: int = 2
    min_green: int = 5
    max_green: int = 50
    num_seconds: int = 20000


class _Host:
    """What sumo-rl's TrafficSignal reads of its SumoEnvironment."""

    fixed_ts = False
    observation_class = DefaultObservationFunction

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.vehicles: dict[str, dict[str, float]] = {}

    @property
    def sim_step(self) -> float:
        """The simulated time, from the step's subscription (read several times per step)."""
        results = self.connection.simulation.getSubscriptionResults()
        if tc.VAR_TIME in results:
            return results[tc.VAR_TIME]
        return self.connection.simulation.getTime()


class Simulation:
    """A running SUMO with sumo-rl's traffic signals on ``network``, seeded by ``seed``."""

    def __init__(
        self, network: Network, seed: int, timing: Timing, *, subscribed: bool = True
    ) -> None:
        """``subscribed=False``: sumo-rl asks SUMO for every value and the simulation runs
        second by second, exactly as sumo-rl's own loop (to check the fast path against)."""
        self.network, self.timing, self._subscribed = network, timing, subscribed
        self._process, self.connection = _start(network, seed)
        try:
            self.connection.simulation.subscribe([tc.VAR_TIME])
            self._cached = SubscribedConnection(self.connection, network.center, network.radius)
            view = self._cached if subscribed else self.connection
            self._host = _Host(view)
            ids = self.connection.trafficlight.getIDList()
            self.signals = {ts: self._signal(ts, view) for ts in ids}
            self._cached.subscribe_lanes(
                {lane for s in self.signals.values() for lane in s.lanes + s.out_lanes}
            )
        except BaseException:
            self.close()
            raise

    def _signal(self, ts_id: str, view: Any) -> TrafficSignal:
        t = self.timing
        return TrafficSignal(
            self._host, ts_id, t.delta_time, t.yellow_time, t.min_green, t.max_green, 0,
            "diff-waiting-time", view,
        )  # fmt: skip

    @property
    def time(self) -> float:
        return self.connection.simulation.getTime()

    @property
    def done(self) -> bool:
        return self.time >= self.timing.num_seconds

    def step(self, phases: dict[str, int]) -> None:
        """Set each named light's next green phase (the others keep theirs: every light must
        be told, or sumo-rl never schedules its next action), then run until they act again."""
        for ts_id, signal in self.signals.items():
            if signal.time_to_act:
                signal.set_next_phase(phases.get(ts_id, signal.green_phase))
        acting = False
        while not acting:
            seconds = self._quiet_seconds() if self._subscribed else 1
            # One call runs them all; subscription results come for the last one only.
            self.connection.simulationStep(self._host.sim_step + seconds)
            for _second in range(seconds):
                for signal in self.signals.values():
                    signal.update()  # counts a second; ends a yellow on the last one
            acting = any(signal.time_to_act for signal in self.signals.values())

    def _quiet_seconds(self) -> int:
        """Seconds until a yellow ends or a light acts: nothing is sent to SUMO before then."""
        now = self._host.sim_step
        events = [signal.next_action_time - now for signal in self.signals.values()]
        events += [
            signal.yellow_time - signal.time_since_last_phase_change
            for signal in self.signals.values()
            if signal.is_yellow
        ]
        return max(1, int(min(events)))

    def vehicles(self) -> list[tuple[float, float, float]]:
        """(x, y, speed) of every vehicle in the network, from the subscription (no round trip)."""
        return [
            (*values[tc.VAR_POSITION], values[tc.VAR_SPEED])
            for values in self._cached.vehicles().values()
            if tc.VAR_POSITION in values
        ]

    def signal_states(self) -> dict[str, str]:
        return {ts: self.connection.trafficlight.getRedYellowGreenState(ts) for ts in self.signals}

    def close(self) -> None:
        """End the SUMO process (asking first, killing it if it does not quit)."""
        connection, self.connection = self.connection, None
        if connection is not None:
            with contextlib.suppress(traci.TraCIException, OSError):
                connection.close(wait=False)
        if self._process.poll() is None:
            try:
                self._process.wait(timeout=CLOSE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()


def _start(network: Network, seed: int) -> tuple[subprocess.Popen, Any]:
    """Start SUMO on a free port and connect to it; retry on another port if one was taken."""
    for _attempt in range(3):
        port = _free_port()
        process = subprocess.Popen(
            [*_command(network, seed), "--remote-port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=network.net_file.parent,
        )
        try:
            return process, _connect(port, process)
        except (traci.TraCIException, traci.FatalTraCIError):
            process.kill()
            process.wait()
    raise RuntimeError("SUMO did not start (three attempts): is eclipse-sumo installed?")


def _command(network: Network, seed: int) -> list[str]:
    return [
        SUMO_BINARY,
        "--net-file", str(network.net_file),
        "--route-files", str(network.route_file),
        "--seed", str(seed % 2**31),
        "--waiting-time-memory", "1000",
        "--time-to-teleport", "-1",
        "--max-depart-delay", "-1",
        "--no-step-log", "true",
        "--no-warnings", "true",
        "--duration-log.disable", "true",
    ]  # fmt: skip


def _connect(port: int, process: subprocess.Popen) -> Any:
    """An unlabelled connection (traci's own ``connect`` prints every failed try)."""
    for _try in range(CONNECT_RETRIES):
        try:
            return traci.connection.Connection("localhost", port, process, None, True)
        except OSError:
            if process.poll() is not None:
                raise traci.TraCIException("SUMO exited before accepting the connection") from None
            time.sleep(CONNECT_WAIT_S)
    raise traci.FatalTraCIError(f"SUMO did not accept a connection on port {port}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
