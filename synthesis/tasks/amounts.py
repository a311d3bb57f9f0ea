"""Amounts a user gives for a new record, in proportion to the record it is for (the quality report's
measure 41, :mod:`envs.quality.amount_bands`): an offer near the listing's price, earnest money a
usual part of the offer — as the seed's are (``synthesis.domains.amounts``), never an offer of
110,000 on a home listed at 640,000.
"""

from __future__ import annotations

import random
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.amount_bands import amount_pairs, outside

from ..domains.amounts import proportionate
from .chain import Chain


def proportionate_inputs(
    spec: EnvSpec, chain: Chain, table: str, args: dict[str, Any], given: dict[str, Any]
) -> dict[str, Any]:
    """``given`` (the inputs of a new row of ``table`` made with ``args``' references) with each amount
    out of proportion redrawn inside its band, against the row itself or the parent ``args`` names as
    the chain's episode holds it now. Drawn with a generator of their own, so the task generator's
    draws stay as they were."""
    assert chain.episode is not None
    out = dict(given)
    rng = random.Random(f"{table}:{sorted(args.items())}")
    for pair in amount_pairs(spec):
        value = out.get(pair.column)
        if pair.table != table or not isinstance(value, int | float) or isinstance(value, bool):
            continue
        source: dict[str, Any] | None = {**args, **out}
        if pair.via is not None:
            key = args.get(pair.via[0])
            source = chain.episode.rows_by_key(pair.via[1], [(key,)])[(key,)] if key is not None else None
        base = source.get(pair.base) if source is not None else None
        if isinstance(base, int | float) and base > 0 and value > 0 and outside(pair, float(value), float(base)):
            out[pair.column] = proportionate(pair, float(base), rng)
    return out
