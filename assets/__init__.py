"""The playground's static files (CSS, JavaScript, images), installed as ``openenv.web.assets``.

The repository keeps them here, at its top level; ``setup.py`` maps this folder into the
``openenv.web`` package, and :func:`openenv.web.static.asset` reads them as package data.
"""
