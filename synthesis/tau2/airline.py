"""tau2-bench's airline domain as an envfarm environment: flights with their status and seats by date,
users with payment methods, reservations; book, change, cancel under tau2's policy (read from the
user's tau2 folder)."""

from __future__ import annotations

from .airline_data import DOCUMENTS, TABLES, seed
from .airline_tools import tools
from .common import Tau2Domain
from .inputs import AIRLINE_DB

ENV_ID = "tau2_airline"

DOMAIN = Tau2Domain(
    env_id=ENV_ID,
    name="tau2-bench airline",
    sector="travel",
    description="tau2-bench's airline customer service: flights with seats and prices by date, users with "
    "payment methods, reservations; book, change flights, cabin, bags and passengers, cancel, under the tau2 "
    "policy.",
    clock="2024-05-15T15:00:00",
    tables=TABLES,
    tools=tools,
    seed=seed,
    documents=DOCUMENTS,
    db_schema=AIRLINE_DB,
)
