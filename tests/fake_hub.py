"""A fake Hugging Face Hub on loopback, for `openenv push` run as a real command and for
datasets read through ``datasets.load_dataset``.

``huggingface_hub`` talks to it through ``HF_ENDPOINT``; it answers the calls of create_repo,
upload_folder, variables, secrets and whoami, and records what would be created and uploaded.
It also holds ``spaces`` (id -> ``{"tags": [...], "likes": n}``) that ``list_spaces`` searches
and ``duplicate_repo`` copies (recorded in ``duplicated``; an unknown source is a 404), and
``datasets`` (:meth:`FakeHub.add_dataset`: one parquet file per split) that ``datasets`` reads:
the repo's info, its file tree, the files (with ranges); any other dataset path is a 404
``EntryNotFound``. Harbor task datasets (:meth:`FakeHub.add_harbor_dataset`: any files, tags,
private) answer ``list_datasets``, the info, the recursive file tree with sizes and the files
that ``snapshot_download`` reads; a private one needs ``HF_TOKEN`` (else 401), and with
``unknown_is_not_found`` an unknown dataset is a 404 ``RepoNotFound``, as on the Hub. Every
call is recorded in ``calls``. The Hub settings are read when
``huggingface_hub`` is imported, so a reader of the fake Hub runs in a fresh process.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from conftest import run_cli

from openenv.hub.bundle import read_front_matter

HF_TOKEN = "hf_fake_token_for_tests_0123456789"
SHA = "a" * 40


def parquet_bytes(rows: list[dict]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buffer)
    return buffer.getvalue()


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
        self.spaces: dict[str, dict] = {}  # Space id -> {"tags": [...], "likes": n}
        self.duplicated: list[tuple[str, dict]] = []  # (source Space id, request body)
        self.datasets: dict[str, dict[str, bytes]] = {}  # repo -> file path -> bytes
        self.harbor: dict[str, dict[str, bytes]] = {}  # Harbor task datasets: path -> bytes
        self.harbor_tags: dict[str, list[str]] = {}
        self.private: set[str] = set()  # Harbor datasets read only with HF_TOKEN
        self.unknown_is_not_found = False  # True: an unknown dataset is a 404 RepoNotFound

    def add_dataset(self, repo: str, splits: dict[str, list[dict]]) -> None:
        """Serve ``repo`` (``owner/name``) with one parquet file per split, ``data/SPLIT-...``."""
        self.datasets[repo] = {
            f"data/{split}-00000-of-00001.parquet": parquet_bytes(rows)
            for split, rows in splits.items()
        }

    def add_harbor_dataset(
        self,
        repo: str,
        files: dict[str, bytes | str],
        tags: tuple[str, ...] = ("harbor",),
        private: bool = False,
    ) -> None:
        """Serve ``repo`` with these files (path -> content), as a Harbor task dataset is:
        its info, its recursive file tree with sizes, its files; listed under ``tags``."""
        self.harbor[repo] = {p: c.encode() if isinstance(c, str) else c for p, c in files.items()}
        self.harbor_tags[repo] = list(tags)
        if private:
            self.private.add(repo)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeHub

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def _send(self, status: int, data: bytes, kind: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _reply(self, body: object, status: int = 200, **headers: str) -> None:
        self._send(status, json.dumps(body).encode(), "application/json", headers)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def do_GET(self) -> None:
        self.server.calls.append(("GET", self.path, self.headers.get("Authorization")))
        if self._harbor():
            return
        if self._is_dataset():
            return self._dataset()
        if self.path == "/api/whoami-v2":
            return self._reply({"name": "tester", "type": "user", "orgs": []})
        url = urlsplit(self.path)
        if url.path == "/api/spaces":
            return self._reply(self._search_spaces(parse_qs(url.query)))
        self._reply({"error": f"not faked: GET {self.path}"}, 404)

    def _search_spaces(self, query: dict[str, list[str]]) -> list[dict]:
        """``list_spaces(search=..., filter=...)``: id substring and every tag, up to limit."""
        words = [w.lower() for w in query.get("search", [])]
        tags = set(query.get("filter", []))
        limit = int(query.get("limit", ["1000"])[0])
        found = [
            {"id": space_id, "_id": space_id, "tags": info.get("tags", []),
             "likes": info.get("likes", 0), "private": False}
            for space_id, info in sorted(self.server.spaces.items())
            if all(w in space_id.lower() for w in words) and tags <= set(info.get("tags", []))
        ]  # fmt: skip
        return found[:limit]

    def do_HEAD(self) -> None:
        self.server.calls.append(("HEAD", self.path, self.headers.get("Authorization")))
        if not self._harbor():
            self._dataset()

    def do_POST(self) -> None:
        hub = self.server
        hub.calls.append(("POST", self.path.split("?")[0], self.headers.get("Authorization")))
        if self._is_dataset(served_only=True):  # a read of a served dataset (paths-info)
            return self._dataset()
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
        if path.startswith("/api/spaces/") and path.endswith("/duplicate"):
            source = path.removeprefix("/api/spaces/").removesuffix("/duplicate")
            if source not in hub.spaces:
                return self._reply({"error": "Repository not found"}, 404)
            payload = json.loads(body)
            hub.duplicated.append((source, payload))
            hub.spaces.setdefault(payload["repository"], dict(hub.spaces[source]))
            return self._reply({"url": f"{hub.url}/spaces/{payload['repository']}"})
        if path.endswith("/variables"):
            payload = json.loads(body)
            hub.variables[payload["key"]] = payload["value"]
            return self._reply({payload["key"]: {"value": payload["value"]}})
        if path.endswith("/secrets"):
            payload = json.loads(body)
            hub.secrets[payload["key"]] = payload["value"]
            return self._reply({})
        self._reply({"error": f"not faked: POST {path}"}, 404)

    # -- datasets, as ``datasets.load_dataset`` reads them --------------------------------

    def _is_dataset(self, served_only: bool = False) -> bool:
        """A dataset read: any dataset path, or (``served_only``: a POST, which may be a push
        of a new dataset) one under a served dataset."""
        if served_only:
            repos = self.server.datasets
            return any(self.path.startswith(f"/api/datasets/{repo}/") for repo in repos)
        return self.path.startswith(("/api/datasets/", "/datasets/"))

    def _dataset(self) -> None:
        path = self.path.split("?")[0]
        for repo, files in self.server.datasets.items():
            api, resolve = f"/api/datasets/{repo}", f"/datasets/{repo}/resolve/"
            if path == api or path.startswith(f"{api}/revision/"):
                siblings = [{"rfilename": name} for name in files]
                info = {"id": repo, "_id": repo, "sha": SHA, "private": False, "tags": []}
                return self._reply({**info, "siblings": siblings, "cardData": {}})
            if path.startswith(f"{api}/tree/"):
                folder = path.removeprefix(f"{api}/tree/").partition("/")[2]
                return self._reply(_entries(files, folder))
            name = path.removeprefix(resolve).partition("/")[2]
            if path.startswith(resolve) and name in files:
                return self._file(files[name])
        self._reply(
            {"error": "Entry not found"}, 404, X_Error_Code="EntryNotFound", X_Repo_Commit=SHA
        )

    def _file(self, data: bytes) -> None:
        common = {"ETag": '"c"', "X_Repo_Commit": SHA, "Accept_Ranges": "bytes"}
        wanted = self.headers.get("Range")
        if not wanted:
            return self._send(200, data, "application/octet-stream", common)
        start_text, _, end_text = wanted.split("=", 1)[1].partition("-")
        start = int(start_text)
        end = int(end_text) if end_text else len(data) - 1
        part = data[start : end + 1]
        last = start + len(part) - 1
        ranged = {**common, "Content_Range": f"bytes {start}-{last}/{len(data)}"}
        self._send(206, part, "application/octet-stream", ranged)

    # -- Harbor task datasets, as list_datasets / list_repo_tree / snapshot_download read them

    def _harbor(self) -> bool:
        """Answer a read of a Harbor dataset (or the dataset search); False: not one."""
        hub, url = self.server, urlsplit(self.path)
        path = unquote(url.path)
        if path == "/api/datasets":
            self._reply(self._search_harbor(parse_qs(url.query)))
            return True
        parts = path.split("/")
        if path.startswith("/api/datasets/") and len(parts) >= 5:
            repo, rest = "/".join(parts[3:5]), parts[5:]
        elif path.startswith("/datasets/") and len(parts) >= 4:
            repo, rest = "/".join(parts[2:4]), parts[4:]
        else:
            return False
        if repo not in hub.harbor:
            if repo in hub.datasets or not hub.unknown_is_not_found:
                return False
            self._reply({"error": "Repository not found"}, 404, X_Error_Code="RepoNotFound")
            return True
        if repo in hub.private and self.headers.get("Authorization") != f"Bearer {HF_TOKEN}":
            self._reply(
                {"error": "Invalid username or password."}, 401, X_Error_Code="RepoNotFound"
            )
            return True
        files = hub.harbor[repo]
        if path.startswith("/datasets/") and rest[:1] == ["resolve"] and len(rest) >= 3:
            name = "/".join(rest[2:])
            if name in files:
                self._file(files[name])
                return True
        elif not rest or rest[0] == "revision":
            siblings = [{"rfilename": name} for name in files]
            info = {"id": repo, "_id": repo, "sha": SHA, "private": repo in hub.private}
            self._reply({**info, "tags": hub.harbor_tags[repo], "siblings": siblings})
            return True
        elif rest[0] == "tree" and len(rest) >= 2:
            recursive = parse_qs(url.query).get("recursive", ["false"])[0].lower() == "true"
            folder = "/".join(rest[2:])
            entries = _tree(files, folder, recursive)
            if entries:
                self._reply(entries)
                return True
        self._reply(
            {"error": "Entry not found"}, 404, X_Error_Code="EntryNotFound", X_Repo_Commit=SHA
        )
        return True

    def _search_harbor(self, query: dict[str, list[str]]) -> list[dict]:
        """``list_datasets(filter=..., search=...)`` over the public Harbor datasets."""
        words = [w.lower() for w in query.get("search", [])]
        tags = set(query.get("filter", []))
        limit = int(query.get("limit", ["1000"])[0])
        found = [
            {"id": repo, "_id": repo, "tags": self.server.harbor_tags[repo], "private": False,
             "likes": 1, "downloads": 2}
            for repo in sorted(self.server.harbor)
            if repo not in self.server.private
            and all(w in repo.lower() for w in words)
            and tags <= set(self.server.harbor_tags[repo])
        ]  # fmt: skip
        return found[:limit]


def _tree(files: dict[str, bytes], folder: str, recursive: bool) -> list[dict]:
    """A Harbor dataset's tree under ``folder``: its files (sizes) and folders, recursive or
    one level; empty when nothing is there (the Hub's 404)."""
    prefix = f"{folder}/" if folder else ""
    below = {p: d for p, d in files.items() if p.startswith(prefix)}
    folders = {
        "/".join(p.split("/")[: i + 1])
        for p in below
        for i in range(prefix.count("/"), p.count("/"))
    }
    entries = [{"type": "directory", "path": f, "oid": "b" * 40} for f in sorted(folders)]
    entries += [
        {"type": "file", "path": p, "size": len(d), "oid": "c" * 40}
        for p, d in sorted(below.items())
    ]
    if not recursive:
        depth = prefix.count("/")
        entries = [e for e in entries if e["path"].count("/") == depth]
    return entries


def _entries(files: dict[str, bytes], folder: str) -> list[dict]:
    """A dataset's file tree at ``folder``: ``data/`` at the top, its files below."""
    if folder == "":
        return [{"type": "directory", "path": "data", "oid": "b" * 40}]
    return [
        {"type": "file", "path": path, "size": len(data), "oid": "c" * 40}
        for path, data in files.items()
        if path.rpartition("/")[0] == folder
    ]


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


HARBOR_TOML = 'version = "1.0"\n[metadata]\ndifficulty = "easy"\n[agent]\ntimeout_sec = 90\n'


def harbor_task_files(
    folder: str, instruction: str = "Do it.", toml: str = HARBOR_TOML
) -> dict[str, str]:
    """The files of one small Harbor task under ``folder`` (its verifier gives reward 1), for
    :meth:`FakeHub.add_harbor_dataset` or a local dataset folder."""
    return {
        f"{folder}/task.toml": toml,
        f"{folder}/instruction.md": instruction,
        f"{folder}/tests/test.sh": "echo 1 > $LOGS_DIR/verifier/reward.txt\n",
        f"{folder}/environment/Dockerfile": "FROM python:3.12-slim\n",
    }
