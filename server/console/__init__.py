"""The web console: the catalog, the tenant's episodes and eval runs as server-rendered pages, served by the farm
at ``/console/`` (``/`` leads there), seeing exactly what the viewer's API key sees.

``install_console(app)`` adds its routes and static files; ``CookieBearer`` is the middleware that
lets a signed-in browser's cookie stand for its key on console paths (``session``).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from . import catalog_pages, episode_pages, login_pages, run_pages
from .pages import STATIC_DIR
from .session import PREFIX, CookieBearer


def install_console(app: FastAPI) -> None:
    """Serve the console from ``app``: its pages and its static files (no CDN: all of it ships here)."""
    app.include_router(login_pages.router)
    app.include_router(catalog_pages.router)
    app.include_router(episode_pages.router)
    app.include_router(run_pages.router)
    app.mount(PREFIX + "/static", StaticFiles(directory=STATIC_DIR), name="console-static")


__all__ = ["CookieBearer", "install_console"]
