"""Dates and times as people write them, read out of an agent's answer.

Tools return ISO values (``2026-06-09``, ``2026-03-02 10:30:00``); an agent writes "June 9, 2026",
"9 June 2026", "06/09/2026", "6/9/26", "Jun 9th" or "10:30 AM on March 2". A value is stated when some
mention in the text names the same day (a mention without a year names that day in any year) and,
for a value with a time of day, when the text also names that time. Slash dates are read both ways
(month first and day first), since an answer does not say which convention it follows. Where the
reader knows the day it is (the policy's clock), "today", "tonight", "tomorrow" and "yesterday" name
days too: "your appointment is today at 9:15 AM" states ``2026-03-02 09:15:00`` on March 2.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

_MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
}
_ABBREVIATIONS = {name[:3]: n for name, n in _MONTHS.items()} | {"sept": 9}
_MONTH_NUMBER = _MONTHS | _ABBREVIATIONS
_MONTH = r"(" + "|".join(sorted(_MONTH_NUMBER, key=len, reverse=True)) + r")\.?"
_ORDINAL = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4}))?"

_ISO = re.compile(r"(?<![\w.])(\d{4})-(\d{1,2})-(\d{1,2})(?:[t\s](\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?)?(?![\d])")
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_ORDINAL}\b{_YEAR}")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?{_MONTH}(?![a-z]){_YEAR}")
_NUMERIC = re.compile(r"(?<![\w./-])(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})(?![\w/]|\.\d)")
_YEAR_FIRST_SLASH = re.compile(r"(?<![\w./-])(\d{4})/(\d{1,2})/(\d{1,2})(?![\w/])")
_CLOCK_12H = re.compile(r"(?<![\w:.])(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b\.?")
_CLOCK_24H = re.compile(r"(?<![\w:.])(\d{1,2}):(\d{2})(?::\d{2})?(?![\d])(?!\s*[ap]\.?\s?m\b)")
_NAMED_TIMES = {"noon": (12, 0), "midday": (12, 0), "midnight": (0, 0)}
_HOURS_SAID = "_ one two three four five six seven eight nine ten eleven twelve"
_HOUR_NAMES = {w: n for n, w in enumerate(re.findall(r"\w+", _HOURS_SAID))}
_HOUR = r"(1[0-2]|[1-9]|" + "|".join(w for w in _HOUR_NAMES if w != "_") + r")"
#: A time said as people say it: "quarter past ten", "half past 2 in the afternoon", "ten o'clock",
#: "quarter to three pm"; without a part of the day it may be either half of it.
_SPOKEN_TIME = re.compile(
    rf"\b(?:(quarter|half) (past|after|to) {_HOUR}(?: o'?clock)?|{_HOUR} o'?clock)"
    r"(?: (in the morning|in the afternoon|in the evening|at night|tonight|[ap]\.?m\b\.?))?"
)
_RELATIVE_DAYS = re.compile(r"\b(today|tonight|this (?:morning|afternoon|evening)|tomorrow|yesterday)\b")
_RELATIVE_OFFSET = {"tomorrow": 1, "yesterday": -1}
#: A day counted from today: "48 days ago", "in 6 days", "6 days from now" (a count of days names
#: one day as surely as its date does).
_COUNTED_DAYS = re.compile(
    r"\b(?:in (\d{1,3}(?:,\d{3})+|\d{1,6}) days?|(\d{1,3}(?:,\d{3})+|\d{1,6}) days? (ago|from now|away|off))\b",
    re.IGNORECASE,
)

# "more than 2 days away" states a rule's bound, not a day: a count after a comparison is no date
_BOUND_BEFORE = re.compile(
    r"\b(?:than|least|most|up to|under|over|within|beyond|exceeds?|exceeding|minimum of|maximum of)\s+$", re.IGNORECASE
)

Day = tuple[int | None, int, int]  # (year or None, month, day)


def parse_value(value: str) -> tuple[date, tuple[int, int] | None] | None:
    """``value`` as (day, time of day) if it is an ISO date or date-time, else None.

    >>> parse_value("2026-03-02 10:30:00"), parse_value("2026-06-09"), parse_value("10")
    ((datetime.date(2026, 3, 2), (10, 30)), (datetime.date(2026, 6, 9), None), None)
    """
    m = _ISO.fullmatch(value.strip().lower())
    if m is None:
        return None
    try:
        day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None
    if m.group(4) is None:
        return day, None
    hour, minute = int(m.group(4)), int(m.group(5))
    return day, (hour, minute)


def days_in(text: str) -> set[Day]:
    """Every day ``text`` names, however written.

    >>> sorted(days_in("due June 9, 2026 or 10 Jun; 06/09/2026 and 2026-06-11"), key=str)
    [(2026, 6, 11), (2026, 6, 9), (2026, 9, 6), (None, 6, 10)]
    """
    t = text.lower()
    out: set[Day] = set()
    for m in _ISO.finditer(t):
        out.add((int(m.group(1)), int(m.group(2)), int(m.group(3))))
    for m in _YEAR_FIRST_SLASH.finditer(t):
        out.add((int(m.group(1)), int(m.group(2)), int(m.group(3))))
    for m in _MONTH_DAY.finditer(t):
        out.add((_year(m.group(3)), _MONTH_NUMBER[m.group(1)], int(m.group(2))))
    for m in _DAY_MONTH.finditer(t):
        out.add((_year(m.group(3)), _MONTH_NUMBER[m.group(2)], int(m.group(1))))
    for m in _NUMERIC.finditer(t):
        first, second, year = int(m.group(1)), int(m.group(2)), _full_year(m.group(3))
        out |= {(year, first, second), (year, second, first)}
    return {d for d in out if 1 <= d[1] <= 12 and 1 <= d[2] <= 31}


def counted_days_as_dates(text: str, today: date) -> str:
    """``text`` with each day counted from ``today`` written as its date: "born 16694 days ago" says
    a day as surely as "born 1980-05-02", and restates it as much.

    >>> counted_days_as_dates("Renewed 48 days ago; it starts in 6 days.", date(2026, 3, 2))
    'Renewed 2026-01-13; it starts 2026-03-08.'
    >>> counted_days_as_dates("Born 16,694 days ago.", date(2026, 1, 15))
    'Born 1980-05-02.'
    """

    def day(m: re.Match[str]) -> str:
        counted = _counted_day(m, text, today)
        return m.group(0) if counted is None else counted.isoformat()

    return _COUNTED_DAYS.sub(day, text)


def _counted_day(m: re.Match[str], text: str, today: date) -> date | None:
    if _BOUND_BEFORE.search(text, 0, m.start()):
        return None
    days = int((m.group(1) or m.group(2)).replace(",", ""))
    return today + timedelta(days=-days if m.group(3) == "ago" else days)


def relative_days(text: str, today: date) -> set[Day]:
    """The days ``text`` names relative to ``today``: "today", "tonight", "this afternoon",
    "tomorrow", "yesterday", "48 days ago", "in 6 days", "6 days from now".

    >>> sorted(relative_days("It is today at 9:15, not tomorrow.", date(2026, 3, 2)))
    [(2026, 3, 2), (2026, 3, 3)]
    >>> sorted(relative_days("Renewed 48 days ago; it starts in 6 days.", date(2026, 3, 2)))
    [(2026, 1, 13), (2026, 3, 8)]
    """
    out: set[Day] = set()
    low = text.lower()
    for m in _RELATIVE_DAYS.finditer(low):
        day = today + timedelta(days=_RELATIVE_OFFSET.get(m.group(1), 0))
        out.add((day.year, day.month, day.day))
    for m in _COUNTED_DAYS.finditer(low):
        counted = _counted_day(m, low, today)
        if counted is not None:
            out.add((counted.year, counted.month, counted.day))
    return out


def _year(text: str | None) -> int | None:
    return int(text) if text else None


def _full_year(text: str) -> int:
    """A year as written in a numeric date; two digits are read as POSIX ``strptime`` reads ``%y``
    (69-99 the 1900s, 00-68 the 2000s), so "4/13/26" is 2026 and a birthday "5/2/80" is 1980."""
    year = int(text)
    if len(text) == 4:
        return year
    return year + (1900 if year >= 69 else 2000)


def times_in(text: str) -> set[tuple[int, int]]:
    """Every time of day ``text`` names, as (hour, minute) on a 24-hour clock.

    >>> sorted(times_in("at 2:30 PM, or 14:30, noon, 9am, and 2026-03-02 10:30:00"))
    [(9, 0), (10, 30), (12, 0), (14, 30)]
    >>> sorted(times_in("quarter past ten in the morning, quarter to three pm, or seven o'clock"))
    [(7, 0), (10, 15), (14, 45), (19, 0)]
    """
    t = text.lower()
    out: set[tuple[int, int]] = set()
    for m in _CLOCK_12H.finditer(t):
        hour, minute = int(m.group(1)) % 12, int(m.group(2) or 0)
        out.add((hour + (12 if m.group(3) == "p" else 0), minute))
    for m in _CLOCK_24H.finditer(t):
        out.add((int(m.group(1)), int(m.group(2))))
    for m in _ISO.finditer(t):
        if m.group(4) is not None:
            out.add((int(m.group(4)), int(m.group(5))))
    out |= {hm for word, hm in _NAMED_TIMES.items() if re.search(rf"\b{word}\b", t)}
    for m in _SPOKEN_TIME.finditer(t.replace("\u2019", "'")):
        out |= _spoken_time(m)
    return {(h, mi) for h, mi in out if h < 24 and mi < 60}


def _spoken_time(m: re.Match[str]) -> set[tuple[int, int]]:
    """The (hour, minute) readings of a time said in words: one with its part of the day, else both."""
    said = m[3] or m[4]
    hour = int(said) if said.isdigit() else _HOUR_NAMES[said]
    minute = {"quarter": 15, "half": 30, None: 0}[m[1]]
    if m[2] == "to":  # "quarter to three" is 2:45
        hour, minute = hour - 1 or 12, 60 - minute
    part = m[5] or ""
    if part.startswith(("in the morning", "a")):
        return {(hour % 12, minute)}
    if part:  # the afternoon, the evening, at night, pm
        return {(hour % 12 + 12, minute)}
    return {(hour % 12, minute), (hour % 12 + 12, minute)}


def date_stated(value: str, text: str) -> bool:
    """Whether ``text`` states the ISO date or date-time ``value``.

    >>> date_stated("2026-06-09", "It is due June 9th."), date_stated("2026-06-09", "due 9 June 2025")
    (True, False)
    >>> date_stated("2026-03-02 10:30:00", "It leaves at 10:30 AM on March 2, 2026.")
    True
    """
    parsed = parse_value(value)
    if parsed is None:
        return False
    day, clock = parsed
    named = any(m == day.month and d == day.day and y in (None, day.year) for y, m, d in days_in(text))
    return named and (clock is None or clock in times_in(text))


def without_dates(text: str) -> str:
    """``text`` with its dates and times blanked out, so that the numbers left are amounts and counts
    ("June 9, 2026" holds no 9 and no 2026 for a number to match).

    >>> " ".join(without_dates("Due June 9, 2026 at 2:30 pm: $12.50").split())
    'Due at : $12.50'
    """
    t = text
    for pattern in (_ISO, _YEAR_FIRST_SLASH, _NUMERIC, _MONTH_DAY, _DAY_MONTH, _SPOKEN_TIME, _CLOCK_12H, _CLOCK_24H):
        t = _blank(pattern, t)
    return t


def _blank(pattern: re.Pattern[str], text: str) -> str:
    # The patterns are written for lower case: match on a lower-cased copy, blank the same spans.
    spans = [m.span() for m in pattern.finditer(text.lower())]
    for start, end in reversed(spans):
        text = text[:start] + " " + text[end:]
    return text


def is_moment(value: object) -> bool:
    """Whether ``value`` is an ISO date or date-time string (as tools return them).

    >>> is_moment("2026-03-02"), is_moment(20260302), is_moment("A-2026")
    (True, False, False)
    """
    return isinstance(value, str) and parse_value(value) is not None
