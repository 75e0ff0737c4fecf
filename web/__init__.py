"""The Gradio playground mounted at ``/web`` on every environment server.

``web.playground.mount_playground`` mounts the page; the other modules each do one job:
``blocks`` (the Gradio layout and events), ``routes`` (the plain HTTP routes next to it),
``shell`` and ``shell_routes`` (the fast shell, playable before Gradio's bundle arrives),
``render`` (views as HTML), ``raster`` (views as PNG, for GIFs and thumbnails), ``forms``
(action forms from JSON schemas), ``chart`` (the reward chart as SVG), ``snippet`` (the
"same call in Python" code), ``export`` (JSONL and GIF), ``tabs`` (one session per browser tab),
``stage`` (the board, its buttons and the episode panel) and ``extension`` (the API handed to an
environment's own ``gradio_builder`` tab).
"""
