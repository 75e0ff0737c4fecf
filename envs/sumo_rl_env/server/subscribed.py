"""A TraCI connection whose per-vehicle and per-lane getters read subscriptions, not the socket.

sumo-rl's ``TrafficSignal`` asks SUMO one value at a time: two round trips per vehicle for the
waiting time, several per lane for density, queue and pressure. Every one of those values is
also delivered, for every subscribed object, in the answer to each ``simulationStep``. This
proxy answers the getters listed below from those results, which hold exactly what the getter
would return now (the simulation does not move between the step and the reads), and passes
every other call to the real connection. A step then costs a handful of round trips whatever
the traffic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import traci.constants as tc

VEHICLE_VARS = {
    "getPosition": tc.VAR_POSITION,
    "getSpeed": tc.VAR_SPEED,
    "getLaneID": tc.VAR_LANE_ID,
    "getAccumulatedWaitingTime": tc.VAR_ACCUMULATED_WAITING_TIME,
    "getAllowedSpeed": tc.VAR_ALLOWED_SPEED,
}
LANE_VARS = {
    "getLastStepVehicleNumber": tc.LAST_STEP_VEHICLE_NUMBER,
    "getLastStepLength": tc.LAST_STEP_LENGTH,
    "getLastStepHaltingNumber": tc.LAST_STEP_VEHICLE_HALTING_NUMBER,
    "getLastStepVehicleIDs": tc.LAST_STEP_VEHICLE_ID_LIST,
}


class SubscribedDomain:
    """A traci domain (``vehicle``, ``lane``) answering ``getters`` from subscription results.

    ``results(object_id)`` gives the last step's values of one object (``None``: none).
    """

    def __init__(
        self, domain: Any, getters: dict[str, int], results: Callable[[str], dict | None]
    ) -> None:
        self._domain, self._getters, self._results = domain, getters, results

    def __getattr__(self, name: str) -> Any:
        var = self._getters.get(name)
        if var is None:
            return getattr(self._domain, name)
        return self._reader(name, var)

    def _reader(self, name: str, var: int) -> Callable[[str], Any]:
        def read(object_id: str) -> Any:
            values = self._results(object_id)
            if values is None or var not in values:  # not subscribed: ask SUMO
                return getattr(self._domain, name)(object_id)
            return values[var]

        return read


class SubscribedConnection:
    """The connection sumo-rl's traffic signals get: ``vehicle`` and ``lane`` getters cached.

    Vehicles come from one context subscription around ``center`` (a junction) whose radius
    covers the whole network, so no vehicle has to be subscribed when it departs; lanes are
    subscribed one by one (``subscribe_lanes``).
    """

    def __init__(self, connection: Any, center: str, radius: float) -> None:
        self._connection, self._center = connection, center
        connection.junction.subscribeContext(
            center, tc.CMD_GET_VEHICLE_VARIABLE, radius, tuple(VEHICLE_VARS.values())
        )
        self.vehicle = SubscribedDomain(connection.vehicle, VEHICLE_VARS, self._vehicle)
        self.lane = SubscribedDomain(
            connection.lane, LANE_VARS, connection.lane.getSubscriptionResults
        )

    def subscribe_lanes(self, lanes: set[str]) -> None:
        for lane in sorted(lanes):
            self._connection.lane.subscribe(lane, tuple(LANE_VARS.values()))

    def vehicles(self) -> dict[str, dict[int, Any]]:
        """Every vehicle in the network with its subscribed values, as of the last step."""
        return self._connection.junction.getContextSubscriptionResults(self._center) or {}

    def _vehicle(self, vehicle_id: str) -> dict | None:
        return self.vehicles().get(vehicle_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)
