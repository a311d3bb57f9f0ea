"""``python -m synthesis.dual OUT [SEED]``: build, check and write the dual-control catalog under OUT,
and print its figures (not part of the default catalog; see docs/synthesis.md, "Dual-control domains")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .build import write_dual_catalog


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print("usage: python -m synthesis.dual OUT [SEED]", file=sys.stderr)
        return 2
    figures = write_dual_catalog(Path(argv[0]), seed=int(argv[1]) if len(argv) > 1 else 0)
    print(json.dumps(figures["total"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
