"""The built-in dual-control domains, as descriptions (``synthesis.dual.description.DualDomain``)."""

from __future__ import annotations

from ..description import DualDomain
from .home import HOME
from .media import MEDIA
from .personal import PERSONAL


def built_in_domains() -> list[DualDomain]:
    """Every built-in domain, validated, in a fixed order."""
    return [DualDomain.model_validate(d) for d in (*HOME, *PERSONAL, *MEDIA)]
