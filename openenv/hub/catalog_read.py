"""Reading catalog files (:mod:`openenv.hub.catalog_file` builds them): a complete catalog
checked (its profile, its records' shape, its digest), its records as ``openenv catalog
inspect`` prints them, and :func:`search`, which ranks records by the share of the query's
words found in their name, description, tags, capabilities and representative queries (as
``openenv`` 0.10 does); :func:`installed_records` makes records of this installation's envs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from openenv.hub.catalog_file import (
    CARD_TYPE,
    FILTERS,
    MAX_CATALOG_BYTES,
    MAX_TEXT,
    PROFILE,
    CatalogError,
    digest,
)

_REVISION = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise CatalogError("the catalog's JSON repeats a key")
        out[key] = value
    return out


def _no_constant(value: str) -> Any:
    raise CatalogError(f"the catalog's JSON holds {value}, which JSON does not allow")


def load_catalog(path: Path) -> dict[str, Any]:
    """A complete catalog file, checked: its profile, its records' shape, its digest."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_CATALOG_BYTES + 1)
    except OSError as exc:
        raise CatalogError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_CATALOG_BYTES:
        raise CatalogError(f"{path} is larger than 16 MiB")
    try:
        snapshot = json.loads(
            data.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_no_constant
        )
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise CatalogError(f"{path} is not a JSON catalog file") from None
    if not isinstance(snapshot, dict) or snapshot.get("schema_version") != PROFILE:
        raise CatalogError(f"{path} is not a catalog of the {PROFILE} profile")
    entries = snapshot.get("entries")
    if not isinstance(entries, list) or not all(_is_record(e) for e in entries):
        raise CatalogError(f"{path} does not match the {PROFILE} profile")
    if snapshot.get("complete") is not True:
        raise CatalogError(f"{path} is incomplete (its build met errors: see its issues)")
    if digest(snapshot) != snapshot.get("digest"):
        raise CatalogError(f"{path}'s content does not match its digest (edited since built?)")
    return snapshot


def _is_record(entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("data"), dict):
        return False
    card, source = entry["data"], entry["data"].get("source")
    return (
        isinstance(entry.get("identifier"), str)
        and isinstance(entry.get("displayName"), str)
        and isinstance(card.get("description"), str)
        and isinstance(source, dict)
        and all(isinstance(source.get(k), str) for k in ("uri", "path", "revision"))
        and _REVISION.match(source["revision"]) is not None
        and all(
            isinstance(entry.get(k, []), list) and all(isinstance(x, str) for x in entry.get(k, []))
            for k in ("tags", "capabilities", "representativeQueries")
        )
    )


_ENTRY_ORDER = ("@context", "identifier", "displayName", "type", "data", "description", "tags",
                "capabilities", "representativeQueries", "metadata")  # fmt: skip
_CARD_ORDER = ("schema_version", "name", "description", "owner", "source",
               "artifact_availability", "artifacts", "license", "license_url", "interfaces",
               "manifest_spec_version", "framework_requirement")  # fmt: skip
_SOURCE_ORDER = ("provider", "id", "uri", "revision", "path")
_ARTIFACT_ORDER = ("kind", "uri", "path", "revision")
_INTERFACE_ORDER = ("role", "protocol", "status", "source_revision")
_OWNER_ORDER = ("authority", "id")


def _ordered(data: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    return {k: data[k] for k in order if k in data} | {
        k: v for k, v in data.items() if k not in order
    }


def record_json(entry: dict[str, Any]) -> dict[str, Any]:
    """A record with its keys in the profile's order (how ``catalog inspect`` prints it)."""
    card = dict(entry["data"])
    if isinstance(card.get("source"), dict):
        card["source"] = _ordered(card["source"], _SOURCE_ORDER)
    if isinstance(card.get("owner"), dict):
        card["owner"] = _ordered(card["owner"], _OWNER_ORDER)
    card["artifacts"] = [_ordered(a, _ARTIFACT_ORDER) for a in card.get("artifacts", [])]
    card["interfaces"] = [_ordered(i, _INTERFACE_ORDER) for i in card.get("interfaces", [])]
    return _ordered({**entry, "data": _ordered(card, _CARD_ORDER)}, _ENTRY_ORDER)


def resolve_entry(snapshot: dict[str, Any], identifier: str) -> dict[str, Any]:
    entries = snapshot["entries"]
    for entry in entries:
        if entry["identifier"] == identifier:
            return entry
    named = [e for e in entries if e["displayName"] == identifier]
    if len(named) == 1:
        return named[0]
    if named:
        raise CatalogError(f"{len(named)} records are named {identifier!r}: give an identifier")
    raise CatalogError(f"no record {identifier[:200]!r} in the catalog (see `openenv discover`)")


# -- search --------------------------------------------------------------------------------


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.casefold()))


def _field_values(entry: dict[str, Any], key: str) -> list[str]:
    card = entry["data"]
    if key == "provider":
        return [card["source"].get("provider", "")]
    if key == "tags":
        return entry.get("tags", [])
    if key == "type":
        return [entry.get("type", "")]
    return [str(card.get(key, ""))]


def parse_filters(items: list[str]) -> dict[str, str]:
    filters: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or key in filters:
            raise CatalogError("filters must be distinct FIELD=VALUE pairs")
        if key not in FILTERS:
            raise CatalogError(f"unsupported filter {key!r}: use one of {', '.join(FILTERS)}")
        filters[key] = value
    return filters


def search(
    entries: list[dict[str, Any]], query: str, filters: dict[str, str], limit: int
) -> list[tuple[dict[str, Any], int]]:
    """(record, score 0-100) best first: the share of the query's words each record has."""
    if not 1 <= limit <= 1000:
        raise CatalogError(f"--limit must be between 1 and 1000, got {limit}")
    if len(query) > MAX_TEXT:
        raise CatalogError(f"the query is longer than {MAX_TEXT} characters")
    wanted = _words(query)
    found = []
    for entry in entries:
        if any(value not in _field_values(entry, k) for k, value in filters.items()):
            continue
        words = _words(
            " ".join([entry["displayName"], entry["data"]["description"], *entry.get("tags", []),
                      *entry.get("capabilities", []), *entry.get("representativeQueries", [])])
        )  # fmt: skip
        shared = wanted & words
        if wanted and not shared:
            continue
        found.append((entry, round(100 * len(shared) / len(wanted)) if wanted else 0))
    found.sort(key=lambda item: (-item[1], item[0]["identifier"]))
    return found[:limit]


def installed_records() -> list[dict[str, Any]]:
    """The environments of this installation as search records (no source revision): the
    current directory's catalog when it is one, else every installed environment."""
    from openenv.cli.targets import resolve

    target = resolve(None)
    packages = [target.entry] if target.entry else target.entries
    records = []
    for pkg in packages:
        records.append(
            {
                "identifier": pkg.name,
                "displayName": pkg.name,
                "description": pkg.description or pkg.title,
                "tags": sorted(set(pkg.tags)),
                "capabilities": [],
                "representativeQueries": [],
                "data": {"description": pkg.description or pkg.title, "license": "unknown",
                         "source": {"provider": "local", "path": str(pkg.path or "")}},
                "metadata": {"playground": {"title": pkg.title, "emoji": pkg.emoji}},
                "type": CARD_TYPE,
            }
        )  # fmt: skip
    return records
