"""The ``openenv`` command line: ``openenv init | serve | validate | build | push | list``."""
