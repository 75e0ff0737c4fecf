"""The browser playground mounted at ``/web`` on every environment server (``openenv.web``).

The repository keeps this package in its top-level ``web/`` folder and its static files in
``assets/``; installed, they are ``openenv.web`` and ``openenv.web.assets`` (see ``setup.py``).
:func:`openenv.web.playground.mount_playground` mounts it; the sub-packages each hold one part:

- ``stage``: the stage a visitor plays on and the per-tab sessions behind it;
- ``page``: the Gradio page (layout, forms, tabs, routes);
- ``shell``: the fast shell, playable before Gradio's bundle arrives;
- ``drawing``: views as HTML and as images;
- ``rewards``: reward components, charts and the reward debugger;
- ``episode``: episodes exported and read back (JSONL, GIF);
- ``catalog``: every environment in one process behind a landing page.

Nothing here is imported by ``openenv.server`` at load time: it mounts the playground lazily.
"""
