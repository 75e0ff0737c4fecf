"""Catalog files: versioned, metadata-only catalogs of environments, searched by task before
anything is installed or run (``openenv catalog build|inspect``, ``openenv discover`` and the
catalog app serving a catalog file use them).

A catalog file is a snapshot of one Git revision of a repository of environment packages
(``envs/<name>/openenv.yaml``), in the ``0.1-draft`` profile ``openenv`` 0.10 reads and writes:
a ``publisher``, the ``source`` repository and commit, the ``inventory`` of package paths, one
``entries`` record per package (an Environment Card under ``data``: name, task description,
owner, source path, license, interfaces; tags and representative queries beside it), the
``issues`` met, ``complete`` and a ``digest`` (SHA-256 of the canonical JSON without it). Only
committed files are read (``git ls-tree`` / ``git cat-file`` of the revision); no package code
is imported. Besides the profile's fields each record's ``metadata`` carries ``provenance``
(which file said what) and ``playground`` (title, emoji, extra: what our catalog page shows).
Reading, checking and searching catalog files: :mod:`openenv.hub.catalog_read`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, urlsplit

import yaml

PROFILE = "0.1-draft"
CARD_TYPE = "application/vnd.openenv.environment-card+json"
ARD_CONTEXT = "https://agenticresourcediscovery.org/context/v1"
GENERATOR = {"name": "openenv-git-catalog", "version": "1"}
CATALOG_ENV_VAR = "OPENENV_CATALOG"
MAX_CATALOG_BYTES = 16 * 1024 * 1024
MAX_METADATA_BYTES = 1024 * 1024
MAX_TEXT = 8192
MAX_ENVIRONMENTS = 10_000
GIT_TIMEOUT_S = 30
FILTERS = ("license", "provider", "artifact_availability", "name", "tags", "type")
AVAILABILITY = ("resolvable", "external", "unknown")
SIMULATION_CONTROLS = {"reset", "step", "state", "get_state"}
FOOTER = "Metadata only. Execution approval remains a separate decision."
_PUBLISHER = re.compile(r"^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}$")
_REVISION = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


class CatalogError(ValueError):
    """A catalog that cannot be built, read or searched; said as ``Catalog error: …``."""

    def __init__(self, message: str) -> None:
        super().__init__(f"Catalog error: {message}")


# -- reading committed metadata ------------------------------------------------------------


def github_repository(uri: str) -> str:
    """``OWNER/NAME`` of a credential-free ``https://github.com/OWNER/NAME.git``."""
    parts = urlsplit(uri)
    path = parts.path
    if (
        parts.scheme != "https"
        or parts.netloc.lower() != "github.com"
        or parts.query
        or parts.fragment
        or "%" in path
        or not path.endswith(".git")
    ):
        raise CatalogError(
            f"--repository-uri must be https://github.com/OWNER/NAME.git (no credentials), "
            f"got {uri[:200]!r}"
        )
    ident = path[1:-4]
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", ident) or any(
        part in (".", "..") for part in ident.split("/")
    ):
        raise CatalogError(f"--repository-uri names no OWNER/NAME: {uri[:200]!r}")
    return ident


def _relative(path: str, what: str) -> str:
    if path == ".":
        return path
    bad = (
        not path
        or "\\" in path
        or PurePosixPath(path).is_absolute()
        or any(part in ("", ".", "..") for part in path.split("/"))
        or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" for c in path)
    )
    if bad:
        raise CatalogError(f"{what} must be a plain relative path like envs, got {path[:200]!r}")
    return path


class _Skip(Exception):
    """One package's metadata is unusable: becomes an ``error`` issue of the catalog."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class GitTree:
    """The files of one commit of a repository, read with bounded ``git`` calls."""

    def __init__(self, repository: Path, revision: str) -> None:
        self.repository = repository
        if not (repository / ".git").exists() and not (repository / "HEAD").is_file():
            raise CatalogError(f"{repository} is not a Git repository")
        out = self._git(["rev-parse", "--verify", "--end-of-options", f"{revision}^{{commit}}"])
        self.revision = out.decode().strip()
        self.files: dict[str, tuple[str, str]] = {}  # path -> (mode, blob id)
        for row in self._git(["ls-tree", "-r", "-z", self.revision], 16 << 20).split(b"\0"):
            if not row:
                continue
            meta, _, name = row.partition(b"\t")
            mode, kind, oid = meta.decode().split()
            if kind == "blob":
                self.files[name.decode("utf-8", "replace")] = (mode, oid)

    def _git(self, args: list[str], limit: int = 4096) -> bytes:
        env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_NO_REPLACE_OBJECTS="1")
        try:
            done = subprocess.run(
                ["git", "--no-pager", "-C", str(self.repository), *args],
                capture_output=True,
                timeout=GIT_TIMEOUT_S,
                env=env,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CatalogError(f"cannot run git in {self.repository}: {exc}") from None
        if done.returncode != 0:
            detail = done.stderr.decode(errors="replace").strip().splitlines()
            raise CatalogError(
                f"git {args[0]} failed in {self.repository}: {detail[-1] if detail else ''}"
            )
        if len(done.stdout) > limit:
            raise CatalogError("the Git tree is larger than a catalog reads")
        return done.stdout

    def packages(self, root: str) -> list[str]:
        prefix = "" if root == "." else f"{root}/"
        if not any(p.startswith(prefix) for p in self.files):
            raise CatalogError(f"{root!r} holds no committed file at {self.revision[:12]}")
        found = sorted(
            p.rsplit("/", 1)[0]
            for p in self.files
            if p.startswith(prefix)
            and p.endswith("/openenv.yaml")
            and p[len(prefix) :].count("/") == 1
        )
        if len(found) > MAX_ENVIRONMENTS:
            raise CatalogError(f"more than {MAX_ENVIRONMENTS} environments under {root!r}")
        return found

    def read(self, path: str, *, required: bool = False) -> str | None:
        item = self.files.get(path)
        if item is None:
            if required:
                raise _Skip("missing_metadata", f"Required metadata is absent: {path}")
            return None
        mode, oid = item
        if mode == "120000":
            raise _Skip("symlink_metadata", f"Metadata must be a regular file, not a link: {path}")
        data = self._git(["cat-file", "blob", oid], MAX_METADATA_BYTES)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise _Skip("invalid_metadata", f"Metadata is not UTF-8: {path}") from None


def _mapping(text: str, path: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):
        raise _Skip("invalid_metadata", f"Invalid YAML metadata: {path}") from None
    if not isinstance(data, dict):
        raise _Skip("invalid_metadata", f"Metadata must be a mapping: {path}")
    return data


def _front_matter(text: str | None, path: str) -> dict[str, Any]:
    if not text or not text.startswith(("---\n", "---\r")):
        return {}
    lines = text.splitlines()
    if "---" not in lines[1:]:
        raise _Skip("invalid_metadata", f"Unclosed README front matter: {path}")
    return _mapping("\n".join(lines[1 : lines.index("---", 1)]), path)


def _project(text: str | None, path: str) -> dict[str, Any]:
    if text is None:
        return {}
    import tomllib

    try:
        project = tomllib.loads(text).get("project", {})
    except tomllib.TOMLDecodeError:
        raise _Skip("invalid_metadata", f"Invalid package metadata: {path}") from None
    if not isinstance(project, dict):
        raise _Skip("invalid_metadata", f"[project] must be a table: {path}")
    return project


def _text(value: Any) -> str | None:
    """A non-blank string of at most MAX_TEXT characters, else None."""
    if isinstance(value, str) and value.strip() and len(value) <= MAX_TEXT:
        return value
    return None


def _license(value: Any) -> tuple[str, bool] | None:
    """(SPDX expression or "other"/"unknown", whether it is a known expression)."""
    if value is None:
        return None
    if isinstance(value, dict):
        value = value.get("text")
        if value is None:
            return ("unknown", False)
    if not isinstance(value, str) or not value.strip():
        return ("unknown", False)
    value = value.strip()
    if value in ("other", "unknown"):
        return (value, False)
    from packaging.licenses import InvalidLicenseExpression, canonicalize_license_expression

    try:
        return (str(canonicalize_license_expression(value)), True)
    except InvalidLicenseExpression:
        return ("other", False)


def _openenv_requirement(project: dict[str, Any]) -> str | None:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    deps = project.get("dependencies", [])
    if not isinstance(deps, list):
        raise _Skip("invalid_metadata", "Package dependencies must be an array")
    found = []
    for dep in deps:
        try:
            if isinstance(dep, str) and canonicalize_name(Requirement(dep).name) == "openenv":
                found.append(dep)
        except InvalidRequirement:
            raise _Skip("invalid_metadata", "Invalid package dependency declaration") from None
    if len(found) > 1:
        raise _Skip("invalid_metadata", "Multiple OpenEnv requirements need an explicit resolution")
    return found[0] if found else None


@dataclass
class _Source:
    tree: GitTree
    repo_id: str
    uri: str

    def url(self, path: str) -> str:
        return (
            f"https://github.com/{self.repo_id}/blob/{self.tree.revision}/{quote(path, safe='/')}"
        )


def _declaration(src: _Source, path: str) -> dict[str, Any]:
    """``discovery.json`` of a package (the profile's optional author declaration)."""
    text = src.tree.read(f"{path}/discovery.json")
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise _Skip("invalid_metadata", f"Invalid discovery declaration: {path}/discovery.json")
    queries = data.get("representative_queries", [])
    if not isinstance(queries, list) or not all(_text(q) for q in queries):
        raise _Skip("invalid_metadata", "representative_queries must be a list of strings")
    if queries and not 2 <= len(queries) <= 5:
        raise _Skip("invalid_metadata", "Declare no representative query, or 2 to 5 of them")
    if data.get("artifact_availability", "resolvable") not in AVAILABILITY:
        raise _Skip("invalid_metadata", f"artifact_availability must be one of {AVAILABILITY}")
    return data


def _entry(
    src: _Source, path: str, publisher: str, namespace: str, root_project: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, str]]]:
    manifest_path, project_path = f"{path}/openenv.yaml", f"{path}/pyproject.toml"
    readme_path, declaration_path = f"{path}/README.md", f"{path}/discovery.json"
    manifest = _mapping(src.tree.read(manifest_path, required=True) or "", manifest_path)
    project = _project(src.tree.read(project_path), project_path)
    readme = _front_matter(src.tree.read(readme_path), readme_path)
    declared = _declaration(src, path)
    provenance: dict[str, Any] = {}

    def first(key: str, *docs: tuple[dict[str, Any], str]) -> Any:
        for doc, origin in docs:
            if doc.get(key) is not None:
                provenance[key] = f"{origin}{'.' if '#' in origin else '#'}{key}"
                return doc[key]
        return None

    name = first("name", (manifest, manifest_path), (project, project_path + "#project"))
    description = first(
        "description",
        (declared, declaration_path),
        (manifest, manifest_path),
        (project, project_path + "#project"),
        (readme, readme_path),
    )
    if not _text(name):
        raise _Skip("invalid_metadata", "Environment needs a declared name")
    if not _text(description):
        raise _Skip("invalid_metadata", "Environment needs an authored task description")
    provenance["source"] = src.uri
    issues: list[dict[str, str]] = []
    license_name, license_url = _license_of(src, path, declared, project, readme, root_project,
                                            provenance, issues)  # fmt: skip
    tags = declared.get("tags") or manifest.get("tags") or readme.get("tags") or []
    if not isinstance(tags, list) or not all(_text(t) for t in tags):
        raise _Skip("invalid_metadata", "Tags must be an array of strings")
    availability = declared.get("artifact_availability", "resolvable")
    where = {"uri": src.uri, "path": path, "revision": src.tree.revision}
    interfaces: list[dict[str, str]] = [{"role": "orchestration", "protocol": "openenv"}]
    capabilities: list[str] = []
    tools = declared.get("agent_tools")
    if tools is not None:
        capabilities = _agent_tools(src, path, tools, interfaces)
        provenance["agent_tools"] = tools["source"]
    requirement = _openenv_requirement(project)
    if requirement is not None:
        provenance["framework_requirement"] = project_path + "#project.dependencies"
    if "spec_version" in manifest:
        provenance["manifest_spec_version"] = manifest_path + "#spec_version"
    card: dict[str, Any] = {
        "schema_version": PROFILE,
        "name": name,
        "description": description,
        "owner": {"authority": "github.com", "id": src.repo_id.split("/", 1)[0]},
        "source": {"provider": "github", "id": src.repo_id, **where},
        "artifact_availability": availability,
        "artifacts": [{"kind": "git", **where}] if availability == "resolvable" else [],
        "license": license_name,
        "license_url": license_url,
        "interfaces": interfaces,
        "manifest_spec_version": _spec_version(manifest.get("spec_version")),
        "framework_requirement": requirement,
    }
    locator = hashlib.sha256(f"{src.uri}\n{path}".encode()).hexdigest()
    playground = {
        k: str(manifest[k]) for k in ("title", "emoji", "extra", "version") if manifest.get(k)
    }
    entry = {
        "@context": ARD_CONTEXT,
        "identifier": f"urn:air:{publisher}:{namespace}:{locator}:{src.tree.revision}",
        "displayName": name,
        "type": CARD_TYPE,
        "data": _drop_none(card),
        "description": description,
        "tags": sorted(set(tags)),
        "capabilities": capabilities,
        "representativeQueries": list(declared.get("representative_queries", [])),
        "metadata": {"provenance": provenance, "playground": playground},
    }
    return entry, issues


def _spec_version(value: Any) -> int | str | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value


def _agent_tools(
    src: _Source, path: str, tools: Any, interfaces: list[dict[str, str]]
) -> list[str]:
    if not isinstance(tools, dict) or not _text(tools.get("protocol")):
        raise _Skip("invalid_metadata", "agent_tools needs a protocol, names and source")
    names, source = tools.get("names"), tools.get("source")
    if not isinstance(names, list) or not names or not all(_text(n) for n in names):
        raise _Skip("invalid_metadata", "agent_tools.names must list the tools")
    if len(set(names)) != len(names) or any(n.casefold() in SIMULATION_CONTROLS for n in names):
        raise _Skip("invalid_metadata", "agent tools must be distinct and not reset/step/state")
    if not isinstance(source, str) or not source.startswith(path + "/"):
        raise _Skip("invalid_metadata", "Agent-tool evidence must belong to the environment")
    src.tree.read(source, required=True)
    interfaces.append(
        {
            "role": "agent-tools",
            "protocol": tools["protocol"],
            "status": "declared",
            "source_revision": src.tree.revision,
        }
    )
    return list(names)


def _license_of(
    src: _Source,
    path: str,
    declared: dict[str, Any],
    project: dict[str, Any],
    readme: dict[str, Any],
    root_project: dict[str, Any],
    provenance: dict[str, Any],
    issues: list[dict[str, str]],
) -> tuple[str, str | None]:
    """The package's license and the URL of the file that declares it (the profile's rules:
    its discovery.json, else its pyproject/README when they agree, else the repository's)."""
    if declared.get("license") is not None:
        parsed = _license(declared["license"]) or ("unknown", False)
        origin = declared.get("license_source") or f"{path}/discovery.json"
        src.tree.read(_relative(origin, "license_source"), required=True)
        provenance["license"] = origin
        return parsed[0], None if parsed[0] == "unknown" else src.url(origin)
    known = [
        (parsed, origin)
        for parsed, origin in (
            (_license(project.get("license")), f"{path}/pyproject.toml"),
            (_license(readme.get("license")), f"{path}/README.md"),
        )
        if parsed is not None
    ]
    if len({p[0] for p, _ in known}) > 1:
        issues.append(
            {
                "path": path,
                "code": "license_conflict",
                "message": "Package and README declarations do not identify one license",
                "severity": "warning",
            }
        )
        return "unknown", None
    if known:
        (expression, _), origin = known[0]
        provenance["license"] = origin
        return expression, None if expression == "unknown" else src.url(origin)
    parsed = _license(root_project.get("license"))
    if parsed is None:
        return "unknown", None
    origin = "pyproject.toml"
    for name in root_project.get("license-files", []) or []:
        if isinstance(name, str) and name in src.tree.files:
            origin = name
            break
    provenance["license"] = origin
    return parsed[0], None if parsed[0] == "unknown" else src.url(origin)


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def digest(snapshot: dict[str, Any]) -> str:
    """``sha256:…`` of the canonical JSON of a snapshot without its ``digest``."""
    body = {k: v for k, v in snapshot.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def build_catalog(
    repository: Path,
    *,
    repository_uri: str,
    publisher: str,
    namespace: str = "openenv",
    revision: str = "HEAD",
    root: str = "envs",
) -> dict[str, Any]:
    """The catalog snapshot of the packages committed under ``root`` at ``revision``."""
    if not _PUBLISHER.match(publisher):
        raise CatalogError(f"--publisher must be a DNS name like example.org, got {publisher!r}")
    if not re.fullmatch(r"[A-Za-z0-9._-]+", namespace):
        raise CatalogError(f"--namespace must be letters, digits, '.', '_' or '-': {namespace!r}")
    repo_id = github_repository(repository_uri)
    root = _relative(root, "--root")
    src = _Source(GitTree(repository, revision), repo_id, repository_uri)
    paths = src.tree.packages(root)
    try:
        root_project = _project(src.tree.read("pyproject.toml"), "pyproject.toml")
    except _Skip as exc:
        raise CatalogError(str(exc)) from None
    entries, issues = [], []
    for path in paths:
        try:
            entry, warnings = _entry(src, path, publisher, namespace, root_project)
        except _Skip as exc:
            issues.append(
                {"path": path, "code": exc.code, "message": str(exc), "severity": "error"}
            )
            continue
        entries.append(entry)
        issues.extend(warnings)
    snapshot: dict[str, Any] = {
        "schema_version": PROFILE,
        "publisher": publisher,
        "source": {"provider": "github", "id": repo_id, "uri": repository_uri,
                   "revision": src.tree.revision},
        "generator": dict(GENERATOR),
        "inventory": {"root": root, "paths": paths},
        "entries": entries,
        "issues": issues,
        "complete": not any(i["severity"] == "error" for i in issues),
    }  # fmt: skip
    snapshot["digest"] = digest(snapshot)
    return snapshot


def write_catalog(snapshot: dict[str, Any], path: Path) -> None:
    """Write the file atomically (a temporary file beside it, then renamed)."""
    text = json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if len(text.encode()) > MAX_CATALOG_BYTES:
        raise CatalogError("the catalog is larger than 16 MiB")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise CatalogError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
