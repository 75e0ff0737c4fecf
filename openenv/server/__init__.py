"""Serving environments: create_app(), the session manager, /ws and the HTTP routes."""

from openenv.server.app import create_app
from openenv.server.context import ServerContext
from openenv.server.sessions import Session, SessionManager

__all__ = ["ServerContext", "Session", "SessionManager", "create_app"]
