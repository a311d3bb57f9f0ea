"""One row names two parties (the quality report's measure 87, :mod:`envs.quality.two_parties`): no
money request asks its own requester to pay, no payment goes to its sender.

:func:`settle_two_parties` redraws the later of two roles holding the same record to another record
of the referenced table, so the first role (the requester, the sender: whose row it is) stays; where
the table has no other record the row is left as drawn.

Not run by ``generate_env`` yet: the payment domain's tools check the owner (the requester, the
sender) on the moves the other party makes (paying or declining a request, claiming or refunding a
payment), and the task generator acts only on rows whose every referenced person is the acting user,
so the rows naming one person twice are the only ones those tasks can use; redrawing them leaves the
domain 8 tasks. It waits on a transition's acting party (the payer pays) in the domain model.
"""

from __future__ import annotations

import random

from envs.formats.spec import EnvSpec
from envs.quality.two_parties import repeated_parties


def settle_two_parties(spec: EnvSpec) -> int:
    """Give each row naming one record in two roles another record in the later role (in place);
    returns how many rows changed."""
    rng = random.Random(f"two-parties:{spec.id}")
    tables = {t.name: t for t in spec.tables}
    changed = 0
    for parties, row, again in list(repeated_parties(spec, spec.seed)):
        if again is None:
            continue
        key = tables[parties.referenced].primary_key[0]
        taken = {row.get(c) for c in parties.columns if c != again}
        others = [r[key] for r in spec.seed.get(parties.referenced, []) if r[key] not in taken]
        if others:
            row[again] = rng.choice(others)
            changed += 1
    return changed
