"""A fake Hugging Face Hub on loopback, for `openenv push` run as a real command.

``huggingface_hub`` talks to it through ``HF_ENDPOINT``; it answers the calls of create_repo,
upload_folder, variables, secrets and whoami, and records what would be created and uploaded.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from conftest import run_cli

from openenv.hub.bundle import read_front_matter

HF_TOKEN = "hf_fake_token_for_tests_0123456789"


class FakeHub(ThreadingHTTPServer):
    """Answers the Hub API calls of create_repo, upload_folder, variables, secrets, whoami."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.calls: list[tuple[str, str, str | None]] = []  # method, path, authorization
        self.created: list[dict] = []
        self.files: dict[str, bytes] = {}
        self.variables: dict[str, str] = {}
        self.secrets: dict[str, str] = {}
        self.validated_yaml: list[dict] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeHub

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def _reply(self, body: object, status: int = 200) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def do_GET(self) -> None:
        self.server.calls.append(("GET", self.path, self.headers.get("Authorization")))
        if self.path == "/api/whoami-v2":
            return self._reply({"name": "tester", "type": "user", "orgs": []})
        self._reply({"error": f"not faked: GET {self.path}"}, 404)

    def do_POST(self) -> None:
        hub = self.server
        hub.calls.append(("POST", self.path.split("?")[0], self.headers.get("Authorization")))
        path, body = self.path.split("?")[0], self._body()
        if path == "/api/repos/create":
            payload = json.loads(body)
            hub.created.append(payload)
            return self._reply(
                {"url": f"{hub.url}/spaces/{payload['organization']}/{payload['name']}"}
            )
        if path == "/api/validate-yaml":
            payload = json.loads(body)
            hub.validated_yaml.append(read_front_matter(payload["content"]))
            return self._reply({"errors": [], "warnings": []})
        if path.endswith("/preupload/main"):
            files = json.loads(body)["files"]
            modes = [
                {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files
            ]
            return self._reply({"files": modes})
        if path.endswith("/commit/main"):
            for line in body.decode().splitlines():
                item = json.loads(line)
                if item["key"] == "file":
                    hub.files[item["value"]["path"]] = base64.b64decode(item["value"]["content"])
            return self._reply(
                {"commitUrl": f"{hub.url}/c/1", "commitOid": "a" * 40, "pullRequestUrl": None}
            )
        if path.endswith("/variables"):
            payload = json.loads(body)
            hub.variables[payload["key"]] = payload["value"]
            return self._reply({payload["key"]: {"value": payload["value"]}})
        if path.endswith("/secrets"):
            payload = json.loads(body)
            hub.secrets[payload["key"]] = payload["value"]
            return self._reply({})
        self._reply({"error": f"not faked: POST {path}"}, 404)


@contextlib.contextmanager
def fake_hub() -> Iterator[FakeHub]:
    """A fake Hub serving from a thread until the block ends (the ``hub`` fixture)."""
    server = FakeHub()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def hub_environ(hub: FakeHub, tmp_path: Path, token: str | None = HF_TOKEN) -> dict[str, str]:
    """This process's environment with the Hub settings replaced: the fake Hub, ``token``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING_FACE"))}
    env.update(HF_ENDPOINT=hub.url, HF_HOME=str(tmp_path / "hf-home"))
    if token:
        env["HF_TOKEN"] = token
    return env


def openenv_cli(args: list[str], hub: FakeHub, tmp_path: Path, token: str | None = HF_TOKEN):
    """Run the ``openenv`` command against the fake Hub, as a user would."""
    return run_cli(*args, cwd=tmp_path, env=hub_environ(hub, tmp_path, token))
