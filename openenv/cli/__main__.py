"""``python -m openenv.cli``: the same as the ``openenv`` command."""

import sys

from openenv.cli.main import main

sys.exit(main())
