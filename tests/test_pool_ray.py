"""EnvPool on a real two-node Ray cluster on this machine (``ray.cluster_utils.Cluster``): env
servers as Ray actors spread over the nodes play the same seeded episodes as local servers;
losing a node fails exactly the envs that were there, and the next reset replaces their
servers; closing leaves no actor, process or port; a pool handed to a Ray task plays there."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlparse

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

from ray.cluster_utils import Cluster  # noqa: E402

from openenv.client.pool import EnvPool  # noqa: E402
from openenv.runtime.ray_provider import Ray  # noqa: E402

pytestmark = pytest.mark.slow

NODE = {"num_cpus": 4, "object_store_memory": 80 * 2**20}
MOVES = ["DOWN", "RIGHT", "RIGHT", "DOWN", "LEFT", "DOWN"]


@pytest.fixture(scope="module")
def cluster():
    cluster = Cluster(initialize_head=True, head_node_args=NODE)
    worker = cluster.add_node(**NODE)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        yield cluster, worker
    finally:
        ray.shutdown()
        cluster.shutdown()


def play(pool) -> list[list[tuple]]:
    """Seeded episodes: the (x, y, reward) of every member after each move."""
    from grid_world_env import GridWorldAction

    seen = [[(r.observation.x, r.observation.y, r.reward) for r in pool.reset(seed=10)]]
    for move in MOVES:
        results = pool.step([GridWorldAction(action=move)] * len(pool))
        assert all(r.ok for r in results), [r.error for r in results if not r.ok]
        seen.append([(r.observation.x, r.observation.y, r.reward) for r in results])
    return seen


def refused(url: str) -> bool:
    host, port = urlparse(url).netloc.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except OSError:
        return True
    return False


def wait_closed(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not refused(url):
        assert time.monotonic() < deadline, f"{url} still answers"
        time.sleep(0.1)


def node_alive(node_id: str) -> bool:
    return any(n["NodeID"] == node_id and n["Alive"] for n in ray.nodes())


def wait_until(condition, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.2)


def servers_of(pool):
    return pool.pool._providers


def test_a_ray_pool_spreads_over_the_nodes_and_plays_as_a_local_one(cluster):
    with EnvPool.launch("grid_world", size=64, servers=4, provider=Ray(num_cpus=1)).sync() as pool:
        nodes = {p.node_id for p in servers_of(pool)}
        assert len(nodes) == 2  # SPREAD: servers on both nodes
        on_ray = play(pool)
    with EnvPool.launch("grid_world", size=64, servers=2).sync() as local:
        assert play(local) == on_ray


def test_a_lost_node_fails_its_envs_only_and_the_next_reset_replaces_their_servers(cluster):
    from grid_world_env import GridWorldAction

    head, _ = cluster
    spare = head.add_node(**NODE)  # the node this test kills
    head.wait_for_nodes()
    pool = EnvPool.launch("grid_world", size=16, servers=4, provider=Ray(num_cpus=1)).sync()
    try:
        pool.reset(seed=1)
        doomed_servers = {i for i, p in enumerate(servers_of(pool)) if p.node_id == spare.node_id}
        assert doomed_servers, "no server landed on the node to lose"
        doomed = {m for m, s in enumerate(pool.pool._slots) if s in doomed_servers}
        head.remove_node(spare, allow_graceful=False)
        for index in doomed_servers:  # the node's processes go down with it (Ray reaps them)
            wait_closed(servers_of(pool)[index].base_url)
        results = pool.step([GridWorldAction(action="DOWN")] * len(pool))
        assert {r.index for r in results if not r.ok} == doomed
        wait_until(lambda: not node_alive(spare.node_id))  # Ray knows it lost the node
        assert all(r.ok for r in results if r.index not in doomed)
        again = pool.reset(seed=2)
        assert all(r.ok for r in again), [r.error for r in again if not r.ok]
        assert all(p.node_id != spare.node_id for p in servers_of(pool))
        assert all(r.ok for r in pool.step([GridWorldAction(action="DOWN")] * len(pool)))
    finally:
        pool.close()


def test_close_leaves_no_actor_process_or_port_behind(cluster):
    from ray.util.state import list_actors

    pool = EnvPool.launch("grid_world", size=8, servers=2, provider="ray").sync()
    pool.reset(seed=0)
    addresses = {urlparse(u).netloc for u in pool.urls}
    pool.close()
    alive = list_actors(filters=[("state", "=", "ALIVE"), ("class_name", "=", "EnvServerActor")])
    assert alive == [], alive
    assert all(refused(f"http://{netloc}") for netloc in addresses)


def test_a_pool_handed_to_a_ray_task_plays_there(cluster):
    with EnvPool.launch("grid_world", size=4, servers=2, provider="ray").sync() as pool:

        @ray.remote(num_cpus=0)
        def rollout(handle) -> list[int]:
            from grid_world_env import GridWorldAction

            with handle:  # the worker's own sessions on the same servers
                handle.reset(seed=3)
                return [r.observation.x for r in handle.step([GridWorldAction(action="DOWN")] * 4)]

        assert ray.get(rollout.remote(pool), timeout=120) == [1, 1, 1, 1]


def test_auto_servers_and_bad_providers():
    from openenv.launch.servers import servers_for

    assert servers_for(1, "auto") == 1 and servers_for(64, "auto") == 1
    assert servers_for(65, "auto") == 2 and servers_for(1024, "auto") == 16
    for bad in (0, -1, "many", True):
        with pytest.raises(ValueError, match="positive number or"):
            servers_for(8, bad)
    with pytest.raises(ValueError, match='provider must be "ray"'):
        EnvPool.launch("grid_world", size=2, provider="kubernetes")


def test_one_env_on_the_cluster_through_auto_env(cluster):
    from grid_world_env import GridWorldAction

    from openenv.launch.auto import AutoEnv

    env = AutoEnv.from_env("grid_world", provider="ray").sync()
    try:
        env.reset(seed=0)
        assert env.step(GridWorldAction(action="DOWN")).observation.x == 1
    finally:
        env.close()
