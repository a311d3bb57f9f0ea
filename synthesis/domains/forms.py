"""Codes written as the trade writes them: an attribute's ``format``, a pattern in the trade's notation.

A person at a tire counter reads ``225/45R17``, a parcel desk ``1Z8A4F2R0312345678``, a dispatcher a
phone number whose area code exists. A generic draw ("R2364", "1Z110311006", "+10650048019") reads as
made up, so an attribute may declare the form its values take, and the seed draws them from it.

The notation, one character at a time:

* ``9`` a digit, ``N`` a digit 2–9 (a North American area code or exchange never starts with 0 or 1);
* ``A`` a capital letter but I, O and Q (left out of VINs and plates, where they read as 1 and 0);
* ``X`` either of those (a letter but I, O, Q, or a digit);
* ``{a|b|c}`` one of the listed literals (tire widths ``{205|215|225}``, a maker's code);
* ``\\c`` the character ``c`` itself; any other character stands for itself (``/``, ``-``, ``R``).

So a tire size is ``{205|215|225}/{45|50|55}R{16|17|18}`` and a UPS tracking number
``1ZXXXXXX{01|02|03}99999999``. :func:`form_pattern` is the regular expression a value of a form
matches, :func:`draw_form` one value of it.
"""

from __future__ import annotations

import random
import re

DIGITS = "0123456789"
LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"  # no I, O, Q
_CLASSES = {"9": DIGITS, "N": "23456789", "A": LETTERS, "X": LETTERS + DIGITS}
_REGEX = {"9": "[0-9]", "N": "[2-9]", "A": "[A-HJ-NPR-Z]", "X": "[A-HJ-NPR-Z0-9]"}


class FormError(ValueError):
    """A format that cannot be read (an unclosed choice, an empty one, a trailing escape)."""


def parse_form(form: str) -> list[str | list[str]]:
    """The form's parts: a class letter (``9``, ``N``, ``A``, ``X``), a literal as a one-item list,
    or a choice as the list of its literals.

    >>> parse_form("{P|LT}9/A")
    [['P', 'LT'], '9', ['/'], 'A']
    """
    parts: list[str | list[str]] = []
    i = 0
    while i < len(form):
        c = form[i]
        if c == "\\":
            if i + 1 == len(form):
                raise FormError(f"format '{form}' ends in an escape")
            parts.append([form[i + 1]])
            i += 2
            continue
        if c == "{":
            end = form.find("}", i)
            if end < 0:
                raise FormError(f"format '{form}' opens a choice it does not close")
            options = form[i + 1 : end].split("|")
            if not all(options):
                raise FormError(f"format '{form}' has an empty choice")
            parts.append(options)
            i = end + 1
            continue
        parts.append(c if c in _CLASSES else [c])
        i += 1
    if not parts:
        raise FormError("a format may not be empty")
    return parts


def form_pattern(form: str) -> re.Pattern[str]:
    """The regular expression every value of ``form`` matches, whole.

    >>> bool(form_pattern("{205|215}/{45|55}R{16|17}").fullmatch("215/45R17"))
    True
    """
    pieces = [
        _REGEX[p] if isinstance(p, str) else "(?:" + "|".join(re.escape(o) for o in p) + ")" for p in parse_form(form)
    ]
    return re.compile("".join(pieces))


def draw_form(form: str, rng: random.Random) -> str:
    """One value of ``form``, drawn with ``rng``.

    >>> bool(form_pattern("1ZXXXXXX{01|02}99999999").fullmatch(draw_form("1ZXXXXXX{01|02}99999999", random.Random(3))))
    True
    """
    return "".join(rng.choice(_CLASSES[p]) if isinstance(p, str) else rng.choice(p) for p in parse_form(form))


def form_size(form: str) -> int:
    """How many distinct values ``form`` has (at most; two choices may spell one value twice)."""
    size = 1
    for p in parse_form(form):
        size *= len(_CLASSES[p]) if isinstance(p, str) else len(p)
    return size


#: The kinds a ``format`` shapes, and those a ``pool`` of real names serves (a title's or a text's
#: names are its ``examples``).
FORMED_KINDS = frozenset({"code", "phone", "zip"})
POOLED_KINDS = frozenset({"company", "city"})


def form_fault(kind: str, form: str | None, pool: list[str] | None) -> str | None:
    """What is wrong with an attribute's ``format`` and ``pool`` for its kind, if anything."""
    if form is not None:
        if kind not in FORMED_KINDS:
            return f"has a format but kind '{kind}' is not code, phone or zip"
        try:
            parse_form(form)
        except FormError as exc:
            return str(exc)
    if pool is not None and (kind not in POOLED_KINDS or not all(pool) or not pool):
        return f"a pool is a list of names for a company or city attribute, not kind '{kind}'"
    return None


class FormDraws:
    """Values of formed and pooled attributes, from their own random stream: the seed's other draws are
    left as they were, so every other value, and the tasks made from them, stay the same. A unique
    attribute's values are drawn again until unused; a pool hands out each name once before any twice
    (two advertisers of one network are two companies)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.taken: dict[str, set[str]] = {}

    def value(self, key: str, form: str | None, pool: list[str] | None, unique: bool) -> str:
        """A value for the attribute ``key`` (``entity.attribute``) of ``form`` or from ``pool``."""
        taken = self.taken.setdefault(key, set())
        for _ in range(1000):
            if pool:
                value = self.rng.choice([p for p in pool if p not in taken] or pool)
            else:
                value = draw_form(form or "9", self.rng)
            if not unique or value not in taken or pool:
                break
        taken.add(value)
        return value
