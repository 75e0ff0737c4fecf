"""Removes one container when the process that started it goes away (runs detached).

``python -m openenv.runtime._reaper CONTAINER_ID WATCH_FD``: blocks reading ``WATCH_FD``, the
read end of a pipe whose write end only the owner holds; EOF means the owner closed it (normal
stop) or died (any signal, SIGKILL included). The container is then force-removed.
"""

from __future__ import annotations

import contextlib
import os
import sys


def main(argv: list[str]) -> int:
    container_id, fd = argv[0], int(argv[1])
    while os.read(fd, 1):
        pass
    import docker
    import docker.errors

    with contextlib.suppress(docker.errors.NotFound):
        docker.from_env().containers.get(container_id).remove(force=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
