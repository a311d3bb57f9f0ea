"""Typed errors of the client layer.

The hierarchy::

    ClientError                     base of everything raised by ``clients``
        ├── FarmAPIError            the task service answered with an error (status, code, message)
        ├── TransportError          the task service or an episode's MCP endpoint could not be reached
        ├── LLMAPIError             an LLM API call failed for good (after retries)
        ├── AgentError              the agent itself failed (counts as a failed trial, not an infra error)
        ├── SelectionError          a task selector names nothing, or something unknown
        ├── ConfigError             an evaluation cannot start as configured (missing model, key ...)
        ├── RunDirError             an output directory cannot be used (another run's config, bad records)
        ├── ForeignOriginError      the farm named a URL on another origin: the key is not sent there
        ├── ResponseTooLarge        a response from the farm was larger than the client reads
        └── PagingError             a listing's pages did not end (too many, or no progress)

``ClientError`` is an ``Exception`` of its own, not a subclass of the farm's ``envs.errors.EnvFarmError``:
the client distribution (``envfarm-client``) does not carry ``envs``. The ``envfarm`` command reports both.

Whether a failure is the *agent's* (the trial counts, with reward 0 if the state is wrong) or the
*infrastructure's* (the trial is reported and retried, never counted) is decided by
``clients.retry.classify``.
"""

from __future__ import annotations


class ClientError(Exception):
    """Base class of the errors raised by the client layer."""


class FarmAPIError(ClientError):
    """The task service answered with an error status.

    Attributes:
        status: the HTTP status code.
        code: the stable machine name from the JSON error body (``task_not_found``, ...).
        message: the human message from the error body.
        field: the request field the error is about, if the server named one.
        retry_after: seconds the server asked to wait (``Retry-After``), if any.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after
        super().__init__(f"task service error {status} {code}: {message}")


class TransportError(ClientError):
    """The task service or an MCP endpoint could not be reached, or broke the protocol."""


class LLMAPIError(ClientError):
    """An LLM API call failed after every retry (rate limits, server errors, auth, bad requests).

    Attributes:
        status: the HTTP status, when there was a response.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class AgentError(ClientError):
    """The agent could not go on (its own logic failed). The trial counts as a failure."""


class SelectionError(ClientError):
    """A task selector matched nothing, or named an unknown environment or task."""


class RunDirError(ClientError):
    """A run directory cannot be used for this run (it holds a different run, or cannot be read)."""


class ConfigError(ClientError):
    """An evaluation cannot start as configured (a missing model or API key, a bad limit)."""


class ForeignOriginError(ClientError):
    """The farm returned a URL (an episode's ``mcp_url``) on another origin than the one the client was
    configured with. The farm key is sent to the configured origin only, so the URL is refused, never
    rewritten. A farm whose public address differs from the configured one: configure that address.

    Attributes:
        url: the URL the farm returned.
        origin: the configured origin (``scheme://host:port``).
    """

    def __init__(self, url: str, origin: str) -> None:
        self.url = url
        self.origin = origin
        super().__init__(
            f"the farm returned {url}, which is not on the configured origin {origin}: the farm key is only "
            f"sent to {origin} (if the farm's public address is that URL's origin, configure the client with it)"
        )


class ResponseTooLarge(ClientError):
    """A response from the farm was larger than the client reads (``max_bytes``).

    Attributes:
        url: the URL requested.
        max_bytes: the limit that was passed.
    """

    def __init__(self, url: str, max_bytes: int) -> None:
        self.url = url
        self.max_bytes = max_bytes
        super().__init__(f"the response from {url} is larger than {max_bytes} bytes; it was not read")


class PagingError(ClientError):
    """A paged listing did not end: more pages or rows than the client reads, or a page that made no progress.

    Attributes:
        path: the listing's path (``/tasks`` ...).
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        super().__init__(f"stopped reading the pages of {path}: {reason}")
