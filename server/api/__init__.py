"""The ASGI app: REST task service + MCP endpoints (``create_app``)."""

from .app import create_app

__all__ = ["create_app"]
