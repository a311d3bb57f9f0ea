"""Bytes a thread has written, from Linux's per-thread I/O counters (``/proc/self/task/<tid>/io``).

A statement that sorts, groups or de-duplicates more than SQLite keeps in memory spills to temporary
files, and SQLite has no limit on them: ``ORDER BY`` over a few hundred 2 MB keys wrote gigabytes
within one call's time limit. The files are unlinked as soon as they are opened, and SQLite does not
say which connection holds which, but a statement runs on one thread (``SQLITE_LIMIT_WORKER_THREADS``
is 0 in ``envs.engine.sandbox``), and a tool call on an in-memory episode writes to no file but those: the
thread's ``wchar`` counter, read before and during the call, is what the call spilled.

Where the counters cannot be read (not Linux, ``/proc`` not mounted), :func:`io_counter` gives None
and temporary files are bounded by the time limit alone.
"""

from __future__ import annotations

import os
import threading

_local = threading.local()


class _Counter:
    """This thread's counter file, opened once (a read is then one ``pread``: about 2 µs) and closed
    with the thread."""

    def __init__(self) -> None:
        self.fd: int | None = None
        try:
            self.fd = os.open(f"/proc/self/task/{threading.get_native_id()}/io", os.O_RDONLY)
            written(self.fd)
        except (OSError, ValueError):
            self.close()

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __del__(self) -> None:
        self.close()


def io_counter() -> int | None:
    """A descriptor of the calling thread's I/O counters, for :func:`written` from any thread; None
    where there are none."""
    counter = getattr(_local, "counter", None)
    if counter is None:
        counter = _local.counter = _Counter()
    return counter.fd


def written(fd: int) -> int:
    """Bytes the thread of ``fd`` (from :func:`io_counter`) has written so far."""
    data = os.pread(fd, 512, 0)
    start = data.index(b"wchar:") + 6
    return int(data[start : data.index(b"\n", start)])


def temp_file_bytes(pid: int | str = "self") -> int:
    """Bytes of SQLite temporary files process ``pid`` holds open: they are unlinked as soon as they
    are opened, so they are found by its file descriptors (``etilqs_*``)."""
    total = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        try:
            if "etilqs_" in os.readlink(f"/proc/{pid}/fd/{fd}"):
                total += os.stat(f"/proc/{pid}/fd/{fd}").st_size
        except OSError:  # closed meanwhile
            continue
    return total
