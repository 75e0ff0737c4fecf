"""Hugging Face Space templates (``templates/*.tmpl``), installed as ``openenv.spaces``.

:mod:`openenv.hub.bundle` renders a Space's Dockerfile, README and entry point from them.
"""
