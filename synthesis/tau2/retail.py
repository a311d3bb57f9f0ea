"""tau2-bench's retail domain as an envfarm environment: users, products with variants, orders;
cancel, modify, return and exchange under tau2's policy (read from the user's tau2 folder)."""

from __future__ import annotations

from .common import Tau2Domain
from .inputs import RETAIL_DB
from .retail_data import DOCUMENTS, TABLES, seed
from .retail_tools import tools

ENV_ID = "tau2_retail"

DOMAIN = Tau2Domain(
    env_id=ENV_ID,
    name="tau2-bench retail",
    sector="retail",
    description="tau2-bench's retail customer service: users, products with variants, orders; cancel, modify, "
    "return and exchange under the tau2 policy.",
    clock="2024-05-15T15:00:00",
    tables=TABLES,
    tools=tools,
    seed=seed,
    documents=DOCUMENTS,
    db_schema=RETAIL_DB,
)
