"""``/docs`` (Swagger UI) served from this server: the browser fetches nothing else.

FastAPI's own page loads its script, styles and favicon from public CDNs, which an air-gapped
cluster cannot reach. The same page is served here with the files shipped by the
``fastapi-offline`` package under ``/docs/assets/``. URLs carry the request's ``root_path``,
so an app mounted under a prefix (the catalog's ``/envs/<name>/``) documents itself too.
There is no ``/redoc``: ReDoc's bundle fetches its logo from cdn.redoc.ly whatever it is told.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"
# Swagger UI would ask validator.swagger.io to check the schema: never leave the server.
SWAGGER_PARAMETERS = {"validatorUrl": None}


def assets_dir() -> Path:
    """The directory of Swagger UI's files (``swagger-ui-bundle.js``, ``swagger-ui.css``...)."""
    return Path(str(files("fastapi_offline") / "static"))


def serve_docs(app: FastAPI) -> None:
    """Add ``/docs``, its OAuth2 redirect and their assets to ``app``.

    Create the app with ``docs_url=None, redoc_url=None`` so FastAPI adds no CDN pages.
    """
    app.mount(ASSETS_PATH, StaticFiles(directory=assets_dir()), name="docs-assets")
    oauth2_redirect = app.swagger_ui_oauth2_redirect_url or f"{DOCS_PATH}/oauth2-redirect"

    async def swagger(request: Request) -> HTMLResponse:
        root = _root(request)
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - API",
            swagger_js_url=f"{root}{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_PATH}/favicon.png",
            oauth2_redirect_url=f"{root}{oauth2_redirect}",
            swagger_ui_parameters={**SWAGGER_PARAMETERS, **(app.swagger_ui_parameters or {})},
        )

    async def swagger_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    for path, page in ((DOCS_PATH, swagger), (oauth2_redirect, swagger_redirect)):
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)


def _root(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")
