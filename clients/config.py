"""``EvalConfig``: everything one evaluation run needs, validated before any work starts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from .errors import ConfigError
from .retry import RetryPolicy

AgentName = Literal["oracle", "openai", "anthropic"]
UserName = Literal["solo", "llm", "oracle"]
_DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
#: What must match for a run directory to be resumed (tasks and trials may grow; endpoints may move).
IDENTITY_FIELDS = ("agent", "model", "user", "user_model", "max_turns", "max_tool_calls", "knowledge")


class EvalConfig(BaseModel):
    """One evaluation run.

    >>> EvalConfig(agent="oracle", server="http://127.0.0.1:8765", out=Path("runs/x")).trials
    1
    """

    model_config = ConfigDict(extra="forbid")

    agent: AgentName
    model: str | None = Field(None, description="The agent's model (required for openai and anthropic)")
    base_url: str | None = Field(None, description="The agent API's base URL (an OpenAI-compatible server)")
    api_key_env: str | None = Field(None, description="Environment variable holding the agent API key")
    user: UserName = "solo"
    user_model: str | None = Field(None, description="The user simulator's model (default: the agent's)")
    user_base_url: str | None = Field(None, description="The user simulator's OpenAI-compatible base URL")
    user_api_key_env: str | None = Field(None, description="Environment variable holding the simulator's key")
    tasks: str = "all"
    trials: int = Field(1, ge=1)
    concurrency: int = Field(4, ge=1)
    out: Path
    server: str = Field(description="The task service's base URL")
    server_key: str | None = None
    max_turns: int = Field(30, ge=1, description="Most agent responses per episode")
    max_tool_calls: int = Field(50, ge=1, description="Most tool calls per episode")
    max_tokens: int = Field(4096, ge=1)
    temperature: float | None = None
    retry_attempts: int = Field(6, ge=1)
    retry_base_delay: float = Field(1.0, ge=0)
    retry_max_delay: float = Field(60.0, ge=0)
    request_timeout: float = Field(120.0, gt=0)
    knowledge: Literal["search", "full", "required", "none", "embeddings"] | None = Field(
        None, description="Where the agent finds an environment's documents (None: the farm's default, search)"
    )
    show_progress: bool = False

    @property
    def retry(self) -> RetryPolicy:
        """The retry policy of every API and task-service request."""
        return RetryPolicy(
            max_attempts=self.retry_attempts, base_delay=self.retry_base_delay, max_delay=self.retry_max_delay
        )

    def identity(self) -> dict[str, Any]:
        """The fields a resumed run must share with the run that wrote the directory."""
        return {f: getattr(self, f) for f in IDENTITY_FIELDS} | {"user_model": self.simulator_model()}

    def simulator_model(self) -> str | None:
        """The user simulator's model (None for ``solo`` and ``oracle``, which are not models)."""
        if self.user in ("solo", "oracle"):
            return None
        return self.user_model or (self.model if self.agent == "openai" else None)

    def simulator_base_url(self) -> str | None:
        """The user simulator's base URL."""
        return self.user_base_url or (self.base_url if self.agent == "openai" else None)

    def agent_api_key(self) -> str:
        """The agent API's key (see ``resolve_api_key``)."""
        return resolve_api_key(self.api_key_env, self.agent, self.base_url)

    def user_api_key(self) -> str:
        """The user simulator's key: its own variable, else the agent's when both speak OpenAI's API."""
        key_env = self.user_api_key_env or (self.api_key_env if self.agent == "openai" else None)
        return resolve_api_key(key_env, "openai", self.simulator_base_url(), flag="--user-api-key-env")

    def check(self) -> None:
        """Refuse a configuration that cannot run.

        Raises:
            ConfigError: naming what is missing or malformed (model, base URL, API key).
        """
        if self.agent != "oracle" and not self.model:
            raise ConfigError(f"--model is required with --agent {self.agent}")
        if self.user == "llm" and not self.simulator_model():
            raise ConfigError("--user llm needs --user-model (the simulator's OpenAI-compatible model)")
        for flag, url in (("--base-url", self.base_url), ("--user-base-url", self.user_base_url)):
            if url is not None and not _is_http_url(url):
                raise ConfigError(f"{flag} must be an http(s) URL such as http://127.0.0.1:8000/v1 (got {url!r})")
        if self.agent != "oracle":
            self.agent_api_key()
        if self.user == "llm":
            self.user_api_key()


def _is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def resolve_api_key(env_var: str | None, vendor: str, base_url: str | None, flag: str = "--api-key-env") -> str:
    """The API key from ``env_var`` (or the vendor's usual variable).

    A custom ``base_url`` (a local OpenAI-compatible server) may need no key: ``EMPTY`` is sent then.

    Raises:
        ConfigError: the named variable is unset, or no key is found for the vendor's own API.
    """
    if env_var:
        value = os.environ.get(env_var)
        if not value:
            raise ConfigError(f"environment variable {env_var} (the {vendor} API key) is not set")
        return value
    default = _DEFAULT_KEY_ENV.get(vendor, "OPENAI_API_KEY")
    value = os.environ.get(default)
    if value:
        return value
    if base_url:
        return "EMPTY"
    raise ConfigError(f"no {vendor} API key: set {default} or pass {flag} VAR")
