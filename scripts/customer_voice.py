"""Scan a catalog's instructions for what no customer writes (docs/synthesis.md, "Customer voice").

    python scripts/customer_voice.py CATALOG_DIR [--top 10] [--json]

Prints repeated questions, each stock phrase's share, "one of my" claims where fewer than two of the
user's records could be acted on, and the most used openings and 4-grams.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from envs.catalog import load_env_dir
from envs.quality.customer_voice import CustomerVoice, customer_voice


def scan(root: Path) -> CustomerVoice:
    """The customer-voice counts summed over every environment directory under ``root``."""
    total = CustomerVoice()
    for path in sorted(p for p in root.iterdir() if (p / "spec.json").exists()):
        entry = load_env_dir(path)
        total.add(customer_voice(entry.environment, entry.tasks))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("catalog", type=Path)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    found = scan(args.catalog)
    summary = {**found.summary(args.top), "examples": found.examples}
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    for key, value in summary.items():
        if isinstance(value, dict):
            print(f"{key}:")
            for k, v in value.items():
                print(f"  {k}: {v}")
        else:
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
