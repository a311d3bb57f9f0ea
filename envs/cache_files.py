"""The cache directory's entries envfarm will use: its own user's, and never a symbolic link.

``ENVFARM_CACHE_DIR`` may be a folder another local user can write to (a shared ``/tmp`` folder, a
group-writable directory). Such a user could plant a symlink where envfarm opens, creates or deletes
something (``envs-*`` pointing into the victim's home, whose ``*.tmp*`` files the stale-staging
cleaner would delete; a ``*.lock`` pointing at a file the victim would create), or a ``current-catalog``
pointer naming a catalog they wrote. So every entry the cache code uses is examined with ``lstat`` (the
link itself, never what it points to) and used only if it is not a symlink and belongs to this process's
user; locks and the pointer are opened with ``O_NOFOLLOW`` and checked again on the open descriptor.

A refused entry is skipped with a logged warning where skipping is safe (cleaning and pruning), and is
an ``UnsafeCacheEntry`` naming the path where envfarm needs it (a lock, the pointer, the catalog).
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from pathlib import Path

from .errors import EnvFarmError

log = logging.getLogger("envfarm.cache")

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO planted as a lock must not block the open
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_POINTER_MAX_BYTES = 64 * 1024


class UnsafeCacheEntry(EnvFarmError):
    """An entry of the cache directory is a symbolic link or belongs to another user; it was not used.

    Attributes:
        path: the entry.
        reason: what is wrong with it.
    """

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(
            f"refusing the cache entry {path}: {reason} (remove it, or set ENVFARM_CACHE_DIR to a folder "
            "only you can write to)"
        )


def this_uid() -> int | None:
    """The user whose entries are trusted: the effective uid (None where there are no uids)."""
    return os.geteuid() if hasattr(os, "geteuid") else None


def _refusal(st: os.stat_result) -> str | None:
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link"
    uid = this_uid()
    if uid is not None and st.st_uid != uid:
        return f"it belongs to uid {st.st_uid}, not to this user (uid {uid})"
    return None


def refusal(path: Path) -> str | None:
    """Why the entry ``path`` must not be used (a symlink, another user's), or None if it may be.

    Raises:
        FileNotFoundError: there is no such entry.
    """
    return _refusal(os.lstat(path))


def trusted(path: Path) -> bool:
    """Whether ``path`` exists and may be used; a refused entry is logged as a warning (the caller skips it)."""
    try:
        reason = refusal(path)
    except OSError:
        return False
    if reason is not None:
        log.warning("skipping the cache entry %s: %s", path, reason)
        return False
    return True


def require_trusted(path: Path) -> None:
    """Nothing if ``path`` is absent or may be used.

    Raises:
        UnsafeCacheEntry: ``path`` is a symlink or another user's.
    """
    try:
        reason = refusal(path)
    except FileNotFoundError:
        return
    if reason is not None:
        raise UnsafeCacheEntry(path, reason)


def _open_regular(path: Path, flags: int, mode: int = 0o666) -> int:
    """``os.open`` that never follows a final symlink, and refuses what is not this user's regular file."""
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeCacheEntry(path, "it is a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
        reason = _refusal(st) or (None if stat.S_ISREG(st.st_mode) else "it is not a regular file")
        if reason is not None:
            raise UnsafeCacheEntry(path, reason)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_lock(path: Path, *, create: bool) -> int:
    """A descriptor of the lock file ``path`` (created if ``create``), for ``flock``.

    Raises:
        UnsafeCacheEntry: ``path`` is a symlink, not a regular file, or another user's.
        FileNotFoundError: it does not exist and ``create`` is false.
    """
    return _open_regular(path, os.O_RDWR | (os.O_CREAT if create else 0))


def read_pointer(path: Path) -> str | None:
    """The text of the pointer file ``path``, stripped; None if there is none.

    Raises:
        UnsafeCacheEntry: ``path`` is a symlink, not a regular file, or another user's.
    """
    try:
        fd = _open_regular(path, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read(_POINTER_MAX_BYTES).decode("utf-8", errors="replace").strip()


def write_new(path: Path, text: str) -> None:
    """Create ``path`` (it must not exist: never through a symlink) holding ``text``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
