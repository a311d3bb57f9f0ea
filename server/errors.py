"""Errors of the serving layer. Each maps to one HTTP status and a JSON body naming what was wrong."""

from __future__ import annotations

from envs.errors import EnvFarmError, shown_name


class ServiceError(EnvFarmError):
    """Base of serving errors; ``status`` is the HTTP status and ``code`` a stable machine name."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


class Unauthorized(ServiceError):
    status, code = 401, "unauthorized"


#: The message of every 401, REST and MCP alike.
MISSING_KEY = "Missing or invalid API key: send 'Authorization: Bearer <key>'"


class Forbidden(ServiceError):
    status, code = 403, "forbidden"


class NoUserSide(ServiceError):
    """A user's endpoint or call on an episode whose environment gives the user no tools."""

    status, code = 404, "no_user_side"

    def __init__(self, episode_id: str, env_id: str) -> None:
        super().__init__(
            f"Episode '{episode_id}' is of environment '{env_id}', where only the agent acts: it has no user "
            "side (user tools come with dual-control environments)",
            field="actor",
        )


class EpisodeNotFound(ServiceError):
    """No such episode for this tenant (other tenants' episodes are indistinguishable from absent)."""

    status, code = 404, "episode_not_found"

    def __init__(self, episode_id: str) -> None:
        super().__init__(f"Episode '{shown_name(episode_id)}' not found", field="episode_id")


class EpisodeEnded(ServiceError):
    status, code = 410, "episode_ended"


class Conflict(ServiceError):
    """Well-formed, but contradicts the catalog or the episode (a task of another environment)."""

    status, code = 409, "conflict"


class NoTask(ServiceError):
    status, code = 409, "episode_has_no_task"


class LimitExceeded(ServiceError):
    status, code = 429, "limit_exceeded"


class QuotaExceeded(ServiceError):
    """A storage quota is used up: the episode's call log, or all of a tenant's. Not 429: retrying
    the same call does not help (clients retry a 429), a new episode or retention does."""

    status, code = 413, "quota_exceeded"


class ReplayFailed(ServiceError):
    """An episode's log no longer replays (its environment changed since it was recorded)."""

    status, code = 409, "replay_failed"


class StoreUnavailable(ServiceError):
    status, code = 503, "store_unavailable"


class BodyTimeout(ServiceError):
    status, code = 408, "body_timeout"
