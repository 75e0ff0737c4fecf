"""A finished run's downloads: the result JSON, the training trace (a trainable run's
validated TrainingTrace) and the capture audit (every captured call, kept and discarded).

Written once per run under one temporary folder of this process (``<tmp>/<run id>/``), as
``<task>.<run id>.result.json`` and so on; a run the service has dropped has its folder removed
the next time a download is written.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
from pathlib import Path

from openenv.harbor.service import HarborService, RunRecord

_RUN_ID = re.compile(r"[0-9a-f]{8,64}")
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


class Downloads:
    """The download files of the service's finished runs."""

    def __init__(self, service: HarborService, root: Path | None = None) -> None:
        self.service = service
        self.root = root or Path(tempfile.mkdtemp(prefix="openenv-harbor-runs-"))
        self._lock = threading.Lock()

    def files(self, record: RunRecord) -> dict[str, Path | None]:
        """``result``, ``training_trace`` and ``capture`` files of a finished run (None where the
        run has none: an eval capture has no training trace)."""
        empty: dict[str, Path | None] = {"result": None, "training_trace": None, "capture": None}
        if not record.finished or not _RUN_ID.fullmatch(record.id):
            return empty
        folder = self.root / record.id
        stem = f"{_SAFE.sub('-', record.task)[:80]}.{record.id}"
        result = record.result
        bodies = {
            "result": record.model_dump_json(indent=2),
            "training_trace": result.trace.model_dump_json() if result and result.trace else None,
            "capture": result.capture.model_dump_json(indent=1)
            if result and result.capture
            else None,
        }
        out: dict[str, Path | None] = {}
        with self._lock:
            if not folder.exists():
                self._forget_dropped()
                folder.mkdir(parents=True)
            for name, body in bodies.items():
                path = folder / f"{stem}.{name}.json"
                if body is not None and not path.exists():
                    path.write_text(body, encoding="utf-8")
                out[name] = path if body is not None else None
        return out

    def _forget_dropped(self) -> None:
        kept = {r.id for r in self.service.runs()}
        for folder in self.root.iterdir():
            if folder.name not in kept:
                shutil.rmtree(folder, ignore_errors=True)
