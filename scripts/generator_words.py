"""Count the requests in the generator's words (measure 94) over a built catalog, summed over its
environments: ``python scripts/generator_words.py CATALOG_DIR``."""

from __future__ import annotations

import sys
from pathlib import Path

from envs.quality.generator_words import scan


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/generator_words.py CATALOG_DIR", file=sys.stderr)
        return 2
    try:
        counts = scan(Path(argv[0]))
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    for key, count in counts.items():
        print(f"{key}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
