"""The Gradio page of the playground: its layout and events (``blocks``), the forms built from
schemas (``forms``), the Tools and Code tabs (``tools``), the API of an environment's own tab
(``extension``), the Python snippet (``snippet``) and the page's plain HTTP routes (``routes``).
"""
