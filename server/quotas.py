"""Storage quotas: bytes of call log one episode, and one tenant, may hold in the store.

Every call is logged, arguments and result, so the log is where a tenant's calls turn into the
farm's disk. Both quotas are checked before a call runs, against what is logged already: once the
log has reached the quota the next call is refused (``QuotaExceeded``), so one call's result is
the most a log can pass it by. A tenant's use is the sum of its episodes' ``log_bytes`` in the
store, which other replicas add to as well; it is re-read at most every ``REFRESH_SECONDS`` (it
is a sum over the tenant's episodes) and this process's own calls are added to it meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .errors import QuotaExceeded, StoreUnavailable
from .settings import Settings
from .store import STORE_UNREACHABLE, Store

REFRESH_SECONDS = 5.0


class TenantLogBytes:
    """Each tenant's bytes of call log in the store, as of at most ``REFRESH_SECONDS`` ago plus what
    this process logged since."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._known: dict[str, tuple[int, float]] = {}  # tenant -> (bytes, when the store was read)

    def current(self, tenant: str, flush: Callable[[], None]) -> int:
        """The tenant's bytes; ``flush`` writes this process's buffered rows before the store is read."""
        known = self._known.get(tenant)
        now = time.monotonic()
        if known is None or now - known[1] > REFRESH_SECONDS:
            try:
                flush()
                used = self.store.tenant_log_bytes(tenant)
            except STORE_UNREACHABLE as exc:  # a 503 (an isError result over MCP), not a bare driver error
                raise StoreUnavailable("The episode store is unavailable; the call was not run") from exc
            known = self._known[tenant] = (used, now)
        return known[0]

    def add(self, tenant: str, logged: int) -> None:
        """Count bytes this process just logged for the tenant (until the next read of the store)."""
        known = self._known.get(tenant)
        if known is not None:
            self._known[tenant] = (known[0] + logged, known[1])

    def forget(self) -> None:
        """Read every tenant's use from the store next time (after logs were deleted)."""
        self._known.clear()


def check_tenant(settings: Settings, usage: TenantLogBytes, tenant: str, flush: Callable[[], None]) -> None:
    """Raise ``QuotaExceeded`` if the tenant's call logs fill its store quota."""
    used = usage.current(tenant, flush)
    quota = settings.max_store_bytes_per_tenant
    if used >= quota:
        raise QuotaExceeded(
            f"Tenant '{tenant}' has {used:,} bytes of call logs in the store, its quota "
            f"(ENVFARM_MAX_STORE_BYTES_PER_TENANT = {quota:,}); ended episodes' logs are deleted by "
            "retention (ENVFARM_RETENTION_*), after which calls are taken again",
            field="store_bytes",
        )


def check_episode(settings: Settings, episode_id: str, log_bytes: int) -> None:
    """Raise ``QuotaExceeded`` if the episode's call log fills its quota."""
    quota = settings.max_log_bytes_per_episode
    if log_bytes >= quota:
        raise QuotaExceeded(
            f"Episode '{episode_id}' has logged {log_bytes:,} bytes of calls, its quota "
            f"(ENVFARM_MAX_LOG_BYTES_PER_EPISODE = {quota:,}); start a new episode",
            field="log_bytes",
        )
