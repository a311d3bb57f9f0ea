"""Dates, times and amounts as a person says them: "February 17", "March 24 at 10 AM", "$5,017.17".

The task generator words a user's requests with these, and the quality report reads a record named
so back (:func:`spoken_spellings`), so the two agree on what a user's words name.
"""

from __future__ import annotations

from datetime import date

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")  # fmt: skip


def spoken_time(hhmm: str) -> str:
    """A 24-hour ``HH:MM`` on a clock face: "10:00" is "10 AM", "13:15" "1:15 PM", "00:30" "12:30 AM"."""
    hour, minute = int(hhmm[:2]), int(hhmm[3:5])
    half = "AM" if hour < 12 else "PM"
    shown = hour % 12 or 12
    return f"{shown} {half}" if minute == 0 else f"{shown}:{minute:02d} {half}"


def spoken_day(day: date, today: date | None = None) -> str:
    """A day in words: "February 17" in ``today``'s year, "November 6, 2025" in another (and always
    with its year when ``today`` is not known), so the words name the same day the ISO date does."""
    words = f"{MONTH_NAMES[day.month - 1]} {day.day}"
    return words if today is not None and day.year == today.year else f"{words}, {day.year}"


def spoken_when(value: object, today: date | None = None) -> str:
    """An ISO date or datetime as a person says it ("March 24 at 10 AM"); any other value as it is."""
    text = str(value)
    try:
        day = date.fromisoformat(text[:10])
    except ValueError:
        return text
    rest = text[10:]
    if not rest:
        return spoken_day(day, today)
    if rest[0] in " T" and len(rest) >= 6 and rest[3] == ":":
        return f"{spoken_day(day, today)} at {spoken_time(rest[1:6])}"
    return text


def spoken_money(value: float) -> str:
    """An amount of money as it is written in a sentence: 5017.17 is "$5,017.17", 40 is "$40.00"."""
    return f"${value:,.2f}"


def spoken_spellings(iso: str) -> tuple[str, ...]:
    """How a user may say an ISO date (``YYYY-MM-DD``) or a ``HH:MM`` time, lower case as the quality
    report compares words: "february 17" and "17 february"; "10 am" and "10:00 am"."""
    if len(iso) == 5 and iso[2] == ":":
        said = spoken_time(iso).lower()
        return tuple(dict.fromkeys((said, f"{int(iso[:2]) % 12 or 12}:{iso[3:]} {said[-2:]}")))
    try:
        day = date.fromisoformat(iso[:10])
    except ValueError:
        return ()
    month = MONTH_NAMES[day.month - 1].lower()
    return (f"{month} {day.day}", f"{day.day} {month}")
