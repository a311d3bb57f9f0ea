"""Request dependencies: the farm object and the calling principal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from envs import Catalog

from ..auth import KeyRing, Principal
from ..connections import ConnectionLimits
from ..episodes import EpisodeService
from ..errors import MISSING_KEY, Unauthorized
from ..metrics import Metrics
from ..scores import ScoreBook
from ..settings import Settings
from ..store import Store


@dataclass
class FarmState:
    """Everything one app instance owns."""

    settings: Settings
    catalog: Catalog
    store: Store
    service: EpisodeService
    keys: KeyRing
    metrics: Metrics
    scores: ScoreBook
    connections: ConnectionLimits


def get_farm(request: Request) -> FarmState:
    farm: FarmState = request.app.state.farm
    return farm


def get_principal(request: Request) -> Principal:
    farm = get_farm(request)
    principal = farm.keys.resolve(request.headers.get("authorization"))
    if principal is None:
        raise Unauthorized(MISSING_KEY, field="authorization")
    return principal


FarmDep = Annotated[FarmState, Depends(get_farm)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
