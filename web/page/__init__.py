"""The Gradio page of the playground: its layout and events (``blocks``), what its parts draw
(``header``: title and legend, ``present``: the presenter's view, ``sides``: who plays which
side, ``panels``: the State/Raw/Python/Rewards panels, ``readme``), the forms built from
schemas (``forms``), the Tools and Code tabs (``tools``), the API of an environment's own tab
(``extension``), the Python snippet (``snippet``) and the page's plain HTTP routes (``routes``).
"""
