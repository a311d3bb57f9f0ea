"""Running totals at least their parts (the quality report's measure 78,
:mod:`envs.quality.running_totals`): no member's miles balance below the accruals posted to it when no
redemption is on record to explain where they went.

:func:`settle_running_totals` runs once the amounts are final (after ``balances.settle_balances``). A
total below the credits on record becomes what it was plus those credits: the balance it held before
the ledger's first entry, with every credit since added, as the tools add each one.
"""

from __future__ import annotations

from envs.formats.spec import EnvSpec
from envs.quality.running_totals import ledger_findings


def settle_running_totals(spec: EnvSpec) -> int:
    """Raise the running totals of ``spec``'s seed rows that are below their credits (in place);
    returns the number of rows changed."""
    changed = 0
    for ledger, parent, credits in list(ledger_findings(spec, spec.seed)):
        total = parent[ledger.total]
        if total >= credits - 0.005:
            continue
        raised = max(total, 0) + credits
        parent[ledger.total] = round(raised) if isinstance(total, int) else round(raised, 2)
        changed += 1
    return changed
