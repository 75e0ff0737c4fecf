"""The playground over a remote OpenEnv server (``openenv playground URL``).

Every browser tab opens its own session on the remote ``/ws``; what the remote sends is drawn by
the rules of :mod:`openenv.web.remote.rules`, or, for a server built with this framework, by
the views its environment renders.
"""
