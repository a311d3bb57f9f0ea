"""Server configuration: ``ENVFARM_*`` environment variables, overridden by CLI flags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from envs.errors import EnvFarmError
from envs.schemas.arguments import DEFAULT_MAX_STRING_CHARS, MAX_STRING_CHARS_CAP

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


class SettingsError(EnvFarmError):
    """A setting (a CLI flag or an ``ENVFARM_*`` variable) has a value the server cannot use."""


class Settings(BaseSettings):
    """Everything ``create_app`` needs. Defaults give the embedded single-user setup."""

    model_config = SettingsConfigDict(env_prefix="ENVFARM_", extra="forbid")

    host: str = Field("127.0.0.1", description="Address to bind; anything but loopback needs API keys")
    port: int = Field(8765, ge=0, le=65535, description="Port to listen on")
    catalog: Path | None = Field(None, description="Catalog directory (default: the built-in catalog)")
    runs_dir: Path | None = Field(
        None,
        description="Folder of envfarm eval run folders the web console shows (to admin keys; none by default)",
    )
    data_dir: Path = Field(Path("data"), description="Where the embedded episode database lives")
    database_url: str | None = Field(
        None, description="SQLAlchemy URL of the episode store (default: sqlite:///<data_dir>/envfarm.db)"
    )
    api_keys: str | None = Field(None, description="Keys as 'KEY TENANT [admin]' entries separated by ';'")
    api_keys_file: Path | None = Field(None, description="File with one 'KEY TENANT [admin]' entry per line")
    public_url: str | None = Field(
        None,
        description="Base URL clients reach this server at, e.g. https://farm.example.org: the base of mcp_url "
        "(default: the address the server is bound to), and its host and origin are allowed automatically",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Extra Host values allowed on every route but /healthz, 'name' or 'name:port' or 'name:*' "
        "(comma-separated or a JSON list); loopback names, the bind address and public_url's host always are. "
        "Others are refused (421) against DNS rebinding",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Extra Origin values allowed for browser requests, e.g. https://app.example.org "
        "(comma-separated or a JSON list); loopback and public_url's origin always are. Others are refused (403)",
    )
    episode_ttl_seconds: float = Field(3600, gt=0, description="Idle time after which an episode expires")
    retention_seconds: float = Field(7 * 86400, gt=0, description="How long call logs are kept after expiry")
    retention_max_episodes_per_tenant: int = Field(
        20_000, ge=0, description="Ended episodes (with their logs) kept per tenant; the oldest beyond are deleted"
    )
    retention_max_bytes_per_tenant: int = Field(
        1_000_000_000,
        ge=0,
        description="Bytes of ended episodes' call logs kept per tenant; the oldest logs beyond are deleted",
    )
    max_log_bytes_per_episode: int = Field(
        64_000_000,
        ge=1000,
        description="Bytes of call log (arguments and results) one episode may hold; further calls get 413",
    )
    max_store_bytes_per_tenant: int = Field(
        4_000_000_000,
        ge=1000,
        description="Bytes of call logs one tenant may hold in the store, open and ended episodes; "
        "further calls get 413",
    )
    log_page_max_bytes: int = Field(
        4_000_000,
        ge=10_000,
        description="Bytes of call log one response carries (GET /episodes/{id}/log pages); one call is always sent",
    )
    max_live_episodes_per_tenant: int = Field(1000, ge=1, description="Open episodes one tenant may have")
    max_episodes_in_memory: int = Field(20000, ge=1, description="Least recently used episodes beyond this are evicted")
    max_calls_per_episode: int = Field(500, ge=1, description="Tool calls one episode may make")
    max_streams_per_tenant: int = Field(
        16,
        ge=1,
        description="Event streams (GET on an MCP endpoint) one tenant may hold open at once; more get 429",
    )
    max_body_bytes: int = Field(1_000_000, ge=1024, description="Largest request body accepted")
    body_read_timeout_seconds: float = Field(
        30.0,
        gt=0,
        description="Seconds a request body may take to arrive once the server reads it; a slower one gets 408 "
        "and its connection is closed",
    )
    header_timeout_seconds: float = Field(
        10.0,
        gt=0,
        description="Seconds a request line and its headers may take to arrive (from the connection's opening, "
        "or a next request's first byte); a slower one gets 408 and its connection is closed",
    )
    max_connections: int = Field(
        0,
        ge=0,
        description="Client connections held at once; a further one is answered 503 and closed (0: the process's "
        "open-file limit less 512)",
    )
    max_connections_per_address: int = Field(
        1024,
        ge=0,
        description="Client connections one address may hold at once; a further one is answered 503 and closed "
        "(0: no cap; set 0 behind a proxy, where every connection comes from the proxy)",
    )
    max_string_chars: int = Field(
        DEFAULT_MAX_STRING_CHARS,
        ge=16,
        le=MAX_STRING_CHARS_CAP,
        description="Characters a string argument may hold where its tool's schema sets no maxLength (a "
        f"maxLength above {MAX_STRING_CHARS_CAP:,} is lowered to that); tools/list states each limit",
    )
    step_budget: int = Field(5_000_000, ge=1000, description="SQLite VM steps one tool call may use")
    call_time_limit_seconds: float = Field(
        10.0, gt=0, description="Seconds of SQL one tool call may take; a slower call ends with a tool error"
    )
    snapshot_after_seconds: float = Field(
        0.25,
        ge=0,
        description="Seconds a write may take before the episode's state after it is saved in the store, so "
        "rebuilding the episode (after a restart or an eviction) starts there instead of running that write again",
    )
    call_threads: int = Field(
        8, ge=2, description="Threads running tool calls, scoring and rebuilds; one tenant may use half of them"
    )
    tenant_pacing: float = Field(
        0.5,
        ge=0,
        le=1,
        description="While several tenants call, the part of its share (1/n of the farm's time) the busiest "
        "tenant may always keep busy, however light the others; up to its share when the others are as busy. "
        "1: pace only beyond an equal share; 0: no pacing",
    )
    reap_interval_seconds: float = Field(
        30, gt=0, description="How often idle episodes are expired and ended episodes' logs past retention deleted"
    )
    metrics_public: bool = Field(
        False, description="Serve /metrics without a key (a scraper on a trusted network); else admin keys only"
    )
    shared_store: bool | None = Field(
        None,
        description="Other replicas serve episodes from the same store: every call is committed before it returns "
        "and checked against calls they made (default: on for any database but SQLite)",
    )
    embeddings: str | None = Field(
        None,
        description="The embedding model that serves the 'embeddings' knowledge mode (documents ranked by meaning): "
        "'local' (all-MiniLM-L6-v2 in this process) or an OpenAI-compatible model as MODEL or MODEL@BASE_URL "
        "(envs/embeddings); unset, that mode is refused",
    )
    durable_fsync: bool = Field(False, description="fsync each commit (survive power loss, not only a crash)")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        "INFO", description="DEBUG logs every tool call; logs are JSON lines on stderr"
    )

    @field_validator("allowed_hosts", "allowed_origins", mode="before")
    @classmethod
    def _split_list(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        if value.lstrip().startswith("["):
            try:
                return json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"not a JSON list: {exc.msg}") from None
        return [item.strip() for item in value.split(",") if item.strip()]

    @field_validator("public_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("expected an http:// or https:// URL with a host name")
        _ = parts.port  # a port that is not a number raises ValueError here, not on the first request
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @classmethod
    def load(cls, **overrides: Any) -> Settings:
        """The settings from the environment and ``overrides``; a bad value raises ``SettingsError``
        naming the setting, its variable and the value (pydantic's report is a multi-line dump)."""
        try:
            return cls(**overrides)
        except ValidationError as exc:
            err = exc.errors()[0]
            name = str(err["loc"][0]) if err["loc"] else "settings"
            problem = err["msg"] if err["type"] != "extra_forbidden" else "not a setting"
            raise SettingsError(
                f"setting '{name}' (ENVFARM_{name.upper()}): {problem} (got {err['input']!r})"
            ) from None

    def store_url(self) -> str:
        """The episode store's database URL."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'envfarm.db'}"

    def store_is_shared(self) -> bool:
        """Whether other replicas may write to this server's episode store."""
        if self.shared_store is not None:
            return self.shared_store
        return not self.store_url().startswith("sqlite")
