"""An embedded farm for commands run without ``--server``: the real app, in a thread, on loopback.

The server is ``server.api.create_app`` under uvicorn on a free 127.0.0.1 port with a temporary
data directory; clients reach it over HTTP and MCP exactly as they would a remote farm.
"""

from __future__ import annotations

import asyncio
import socket
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

from envs.errors import EnvFarmError


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
        import uvicorn

        from server.api import create_app
        from server.settings import Settings

        self._tmp = tempfile.TemporaryDirectory(prefix="envfarm-embedded-") if data_dir is None else None
        directory = Path(self._tmp.name) if self._tmp else data_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        settings = Settings(port=self.port, catalog=catalog, data_dir=directory)
        config = uvicorn.Config(
            create_app(settings), host="127.0.0.1", port=self.port, log_level="warning", ws="none", lifespan="on"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name=f"envfarm-embedded-{self.port}", daemon=True)
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            asyncio.run(self._server.serve())
        except BaseException as exc:  # reported by start()
            self._error = exc

    def start(self) -> str:
        """Start serving; return the base URL.

        Raises:
            EnvFarmError: the server did not start within 30 s.
        """
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if self._error is not None or not self._thread.is_alive():
                raise EnvFarmError(f"the embedded server failed to start: {self._error!r}")
            if time.monotonic() > deadline:
                raise EnvFarmError("the embedded server did not start within 30 s")
            time.sleep(0.01)
        return self.url

    def stop(self) -> None:
        """Stop serving and remove the temporary data directory."""
        self._server.should_exit = True
        self._thread.join(timeout=30)
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
