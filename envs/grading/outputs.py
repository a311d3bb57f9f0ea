"""Match required outputs against an agent's final answer.

Both sides are NFKC-normalized, lower-cased and whitespace-collapsed. A date or date-time output
matches the same day (and time) however the answer writes it (:mod:`envs.grading.mentions`); a numeric
output matches a number in the answer with the same value, outside its dates and times, so "10"
matches "$10.00" or "ten" but not "100", "10.5" or "May 10"; any other output must appear with word
boundaries on both sides, so "gold" does not match "golden", with hyphens and underscores read as
spaces ("merchant_responded" is "merchant responded") and British and American doubling alike
("cancelled" is "canceled").
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date

from .mentions import days_in, parse_value, relative_days, times_in, without_dates

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


#: Numbers people write as words; "one" is left out, since "one of my bookings" states no count.
_COUNTS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
_NUMBER_WORDS = {
    word: float(n) for n, word in enumerate([*_COUNTS.split(), "seventeen", "eighteen", "nineteen", "twenty"])
}
del _NUMBER_WORDS["one"]
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b")


_UNITS = {w: n for n, w in enumerate([*_COUNTS.split(), "seventeen", "eighteen", "nineteen"])}
_TEN_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_TENS = {w: 10 * n for n, w in enumerate(_TEN_WORDS, 2)}
_SPOKEN_WORD = "|".join([*_UNITS, *_TENS, "hundred", "thousand", "and", "a"])
#: A count from twenty to ninety-nine in words, without a currency: "forty-three", "thirty four".
_TENS_NUMBER = re.compile(
    rf"\b({'|'.join(_TEN_WORDS)})(?:[\s-]({'|'.join(w for w, n in _UNITS.items() if 1 <= n <= 9)}))?\b"
)
#: A whole sum said in words before its currency: "fifty dollars", "one hundred and twenty-five euros".
_SPOKEN_AMOUNT = re.compile(rf"\b((?:(?:{_SPOKEN_WORD})[\s-]+)+)(?:dollars|euros|pounds|bucks)\b")


def _spoken(words: str) -> float | None:
    """The number a run of number words says ("one hundred and twenty-five" -> 125), or None."""
    total = part = 0
    said = False
    for w in re.split(r"[\s-]+", words.strip()):
        if w in _UNITS:
            part += _UNITS[w]
        elif w in _TENS:
            part += _TENS[w]
        elif w == "hundred":
            part = max(part, 1) * 100
        elif w == "thousand":
            total, part = total + max(part, 1) * 1000, 0
        elif w in ("and", "a"):
            continue
        else:
            return None
        said = True
    return float(total + part) if said else None


#: A sum said in its currency and cents: "71 dollars and 40 cents", "fifty dollars and five cents".
_WITH_CENTS = re.compile(
    rf"(?<![\w.])(\d{{1,3}}(?:,\d{{3}})+|\d+|(?:(?:{_SPOKEN_WORD})[\s-]+)*(?:{_SPOKEN_WORD}))\s+"
    rf"(?:dollars?|euros?|pounds?|bucks)(?:,?\s+and)?\s+(\d{{1,2}}|(?:(?:{_SPOKEN_WORD})[\s-]+)*(?:{_SPOKEN_WORD}))"
    r"\s+cents?\b"
)


def _with_cents(m: re.Match[str]) -> float | None:
    whole, cents = (float(g.replace(",", "")) if g[0].isdigit() else _spoken(g) for g in (m[1], m[2]))
    return None if whole is None or cents is None or cents >= 100 else round(whole + cents / 100, 2)


def numbers_in(text: str) -> list[float]:
    """Every standalone number in ``text`` (digits, a count from two to twenty in words, a whole
    sum in words before its currency, or a sum with its cents said after it).

    >>> numbers_in("Refund of $1,234.50 for order #W1003, two items")
    [1234.5, 2.0]
    >>> numbers_in("They add up to fifty dollars, or one hundred and twenty-five euros.")
    [50.0, 125.0]
    >>> numbers_in("It comes to 1,071 dollars and 40 cents, or seventy dollars and five cents.")
    [1071.4, 70.05]
    >>> numbers_in("You have forty-three credits left, twenty of them new, and three on hold.")
    [3.0, 43.0, 20.0]
    """
    # Signs are read from the text too ("-5"), but a hyphen inside words is not a sign.
    # "1." or "2)" opening a line numbers a list item, it states no value
    t = normalize(re.sub(r"(?m)^\s*\d{1,2}[.)](?=\s)", " ", text))
    # "71 dollars and 40 cents" is one sum, not a 71 and a 40
    cents = [v for m in _WITH_CENTS.finditer(t) if (v := _with_cents(m)) is not None]
    t = _WITH_CENTS.sub(lambda m: " " if _with_cents(m) is not None else m[0], t) if cents else t
    found = [float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(t)]
    spoken = [v for m in _SPOKEN_AMOUNT.finditer(t) if (v := _spoken(m.group(1))) is not None]
    counted = _SPOKEN_AMOUNT.sub(" ", t) if spoken else t  # "twenty-five dollars" says no twenty and no five
    tens = [float(_TENS[m[1]] + (_UNITS[m[2]] if m[2] else 0)) for m in _TENS_NUMBER.finditer(counted)]
    counted = _TENS_NUMBER.sub(" ", counted) if tens else counted  # "forty-three" says no three
    return found + [_NUMBER_WORDS[m.group(1)] for m in _NUMBER_WORD.finditer(counted)] + tens + spoken + cents


def _words(text: str) -> str:
    """Normalized text with hyphens and underscores as spaces and "-elled" spelt "-eled"."""
    return re.sub(r"(?<=[a-z]e)ll(?=ed\b|ing\b)", "l", " ".join(re.sub(r"[-_]", " ", normalize(text)).split()))


def output_present(required: str, answer: str) -> bool:
    """Whether ``answer`` states ``required``.

    >>> output_present("10", "It costs 100 dollars"), output_present("10", "It costs $10.")
    (False, True)
    """
    return Reading(answer).states(required)


_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::00)?")


class Reading:
    """A text read once for many values: its days, times, numbers and words, so that asking whether
    it states each of a record's values does not read it again each time. Given ``today`` (the day
    the agent was told it is), "today", "tomorrow" and "yesterday" name days too."""

    def __init__(self, text: str, today: date | None = None) -> None:
        self.text = text
        self.today = today
        self._days: set[tuple[int | None, int, int]] | None = None
        self._times: set[tuple[int, int]] | None = None
        self._numbers: list[float] | None = None
        self._words: str | None = None

    def states(self, required: str) -> bool:
        """Whether the text states ``required`` (see the module docstring for how)."""
        parsed = parse_value(required.strip())
        if parsed is not None:
            day, clock = parsed
            days, times = self._moments()
            named = any(m == day.month and d == day.day and y in (None, day.year) for y, m, d in days)
            return named and (clock is None or clock in times)
        hhmm = _CLOCK.fullmatch(required.strip())
        if hhmm is not None:  # a time of day: "10:30" is "10:30am", "10:30 AM"
            return (int(hhmm.group(1)), int(hhmm.group(2))) in self._moments()[1]
        value = as_number(required)
        if value is not None:
            if self._numbers is None:
                self._numbers = numbers_in(without_dates(self.text))
            return any(math.isclose(value, n, rel_tol=1e-9, abs_tol=1e-9) for n in self._numbers)
        needle = _words(required)
        if not needle:
            return True
        if self._words is None:
            self._words = _words(self.text)
        return _on_word_bounds(needle, self._words)

    def _moments(self) -> tuple[set[tuple[int | None, int, int]], set[tuple[int, int]]]:
        if self._days is None or self._times is None:
            self._days, self._times = days_in(self.text), times_in(self.text)
            if self.today is not None:
                self._days |= relative_days(self.text, self.today)
        return self._days, self._times


def _on_word_bounds(needle: str, text: str) -> bool:
    """Whether ``needle`` occurs in ``text`` with no word character glued to either side."""
    at = text.find(needle)
    while at >= 0:
        end = at + len(needle)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        at = text.find(needle, at + 1)
    return False
