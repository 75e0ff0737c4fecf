"""The catalog: every environment in envs/ in one process. ``python app.py``.

A landing page at ``/``, each environment's API under ``/envs/<name>/`` and its playground under
``/envs/<name>/web/``. Reads ``$PORT`` (default 7860) and ``$HOST`` (default 0.0.0.0), so the
same file is the entry point of the catalog's Hugging Face Space (whose bundle renders it from
``spaces/templates/app_catalog.py.tmpl``: keep the two alike). ``$OPENENV_ENVS_DIR`` serves
another directory of environment packages instead of ``envs/``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENVS_DIR = Path(os.environ.get("OPENENV_ENVS_DIR") or HERE / "envs").resolve()
# A Space runs this file from a bundle that vendors the framework and envs/ without installing.
for path in (str(ENVS_DIR), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from openenv.web.catalog.app import create_catalog_app  # noqa: E402

app = create_catalog_app(ENVS_DIR)


def main() -> None:
    from openenv.cli.serve import run

    run(app, default_port=7860)


if __name__ == "__main__":
    main()
