"""API keys and tenants. No key configured = local single-user mode (loopback only)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path

from envs.errors import EnvFarmError

LOCAL_TENANT = "local"


class AuthConfigError(EnvFarmError):
    """The API key configuration cannot be used."""


@dataclass(frozen=True)
class Principal:
    """Who is calling: a tenant, and whether it may see gold actions."""

    tenant: str
    admin: bool


def parse_keys(text: str, *, source: str) -> dict[str, Principal]:
    """Parse 'KEY TENANT [admin]' entries (one per line or separated by ';'; '#' starts a comment)."""
    keys: dict[str, Principal] = {}
    for n, raw in enumerate(text.replace(";", "\n").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "admin"):
            raise AuthConfigError(f"{source} entry {n}: expected 'KEY TENANT [admin]', got {len(parts)} field(s)")
        if len(parts[0]) < 16:
            raise AuthConfigError(f"{source} entry {n}: API keys must be at least 16 characters")
        keys[parts[0]] = Principal(tenant=parts[1], admin=len(parts) == 3)
    return keys


class KeyRing:
    """Resolves bearer tokens to principals."""

    def __init__(self, keys: dict[str, Principal]) -> None:
        self._keys = keys

    @classmethod
    def load(cls, inline: str | None, file: Path | None) -> KeyRing:
        keys: dict[str, Principal] = {}
        if file is not None:
            try:
                keys.update(parse_keys(file.read_text(encoding="utf-8"), source=str(file)))
            except OSError as exc:
                raise AuthConfigError(f"cannot read API keys file {file}: {exc.strerror}") from None
        if inline:
            keys.update(parse_keys(inline, source="ENVFARM_API_KEYS"))
        return cls(keys)

    @property
    def local_mode(self) -> bool:
        """True when no key is configured: everyone is the local admin."""
        return not self._keys

    def resolve(self, authorization: str | None) -> Principal | None:
        """The principal for an ``Authorization`` header value, or None if it is not valid."""
        if self.local_mode:
            return Principal(tenant=LOCAL_TENANT, admin=True)
        if not authorization or not authorization.lower().startswith("bearer "):
            return None
        token = authorization[7:].strip()
        for key, principal in self._keys.items():
            if hmac.compare_digest(key.encode(), token.encode()):
                return principal
        return None
