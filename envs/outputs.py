"""Match required outputs against an agent's final answer.

Both sides are NFKC-normalized, lower-cased and whitespace-collapsed. A numeric output matches a
number in the answer with the same value, so "10" matches "$10.00" but not "100" or "10.5"; any
other output must appear with word boundaries on both sides, so "gold" does not match "golden".
"""

from __future__ import annotations

import math
import re
import unicodedata

# A number not glued to letters, digits, '_' or '.': "A1001" and "#W1003" are identifiers, not numbers.
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|\.\d)")
_WHOLE_NUMBER = re.compile(r"^[-+]?[$€£¥]?\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*%?$")


def normalize(text: str) -> str:
    """NFKC, lower case, single spaces.

    >>> normalize("  Order\\u00a0 #W1003\\n")
    'order #w1003'
    """
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def as_number(text: str) -> float | None:
    """The value of ``text`` if it is a single number (currency sign, commas and % allowed).

    >>> as_number("$1,234.50"), as_number("A1001")
    (1234.5, None)
    """
    t = normalize(text)
    if not _WHOLE_NUMBER.match(t):
        return None
    sign = -1.0 if t.startswith("-") else 1.0
    digits = re.sub(r"[^\d.]", "", t)
    return sign * float(digits)


def numbers_in(text: str) -> list[float]:
    """Every standalone number in ``text``.

    >>> numbers_in("Refund of $1,234.50 for order #W1003, 2 items")
    [1234.5, 2.0]
    """
    # Signs are read from the text too ("-5"), but a hyphen inside words is not a sign.
    return [float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(normalize(text))]


def output_present(required: str, answer: str) -> bool:
    """Whether ``answer`` states ``required``.

    >>> output_present("10", "It costs 100 dollars"), output_present("10", "It costs $10.")
    (False, True)
    """
    value = as_number(required)
    if value is not None:
        return any(math.isclose(value, n, rel_tol=1e-9, abs_tol=1e-9) for n in numbers_in(answer))
    needle = normalize(required)
    if not needle:
        return True
    return re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", normalize(answer)) is not None
