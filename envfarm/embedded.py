"""An embedded farm for commands run without ``--server``: the real app, in a thread, on loopback.

The server is ``server.api.create_app`` under uvicorn on a free 127.0.0.1 port with a temporary
data directory; clients reach it over HTTP and MCP exactly as they would a remote farm.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import TracebackType

from server.threaded import ThreadedServer, free_port

__all__ = ["EmbeddedServer", "free_port"]


class EmbeddedServer:
    """The farm on ``http://127.0.0.1:<free port>`` while the ``with`` block runs.

    Args:
        catalog: the catalog directory (None: the built-in catalog).
        data_dir: where the episode store lives (None: a temporary directory, removed at exit).

    >>> with EmbeddedServer() as url:  # doctest: +SKIP
    ...     print(url)
    http://127.0.0.1:40123
    """

    def __init__(self, *, catalog: Path | None = None, data_dir: Path | None = None) -> None:
        from server.api import create_app
        from server.settings import Settings

        self._tmp = tempfile.TemporaryDirectory(prefix="envfarm-embedded-") if data_dir is None else None
        directory = Path(self._tmp.name) if self._tmp else data_dir
        self._thread = ThreadedServer(create_app(Settings.load(catalog=catalog, data_dir=directory)))
        self.port = self._thread.port
        self.url = self._thread.url

    def start(self) -> str:
        """Start serving; return the base URL.

        Raises:
            EnvFarmError: the server did not start within 30 s.
        """
        return self._thread.start()

    def stop(self) -> None:
        """Stop serving and remove the temporary data directory."""
        try:
            self._thread.stop()
        finally:
            if self._tmp is not None:
                self._tmp.cleanup()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
