"""``openenv.cli.serve.run``: how every server we start (``openenv serve``, ``python app.py``,
a Space's entry point) is configured."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT, free_port, stop_process_group, wait_healthy
from websockets.sync.client import connect

SERVER = "from grid_world_env.server.app import app; from openenv.cli.serve import run; run(app)"


def test_websockets_are_served_without_per_message_deflate() -> None:
    # A client asking for compression (the websockets default) would cost ~64 KiB per idle
    # session of zlib state; frames are compressed already.
    port = free_port()
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "ENABLE_WEB_INTERFACE": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER], cwd=ROOT, env=env, start_new_session=True
    )
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc, timeout=120)
        with connect(f"ws://127.0.0.1:{port}/ws", compression="deflate") as ws:
            assert ws.protocol.extensions == []
            ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
            assert json.loads(ws.recv())["type"] == "observation"
    finally:
        stop_process_group(proc)
