"""Codes and named things not written as their trade writes them (measure 100, docs/synthesis.md): a
tire size "R2364", a UPS tracking number "1Z110311006", a phone number with area code 065, a tire
brand "Wells PLC".

Matched by column names and a table of the trade's notations kept with the measure (as measure 99's
kinds are), so it runs on any catalog, the imported ones too:

* **Codes** (:data:`CODE_FORMS`): a column named for a kind of code holds values of one of the forms a
  person of that trade reads — a tire size ``225/45R17`` (``P``/``LT`` before it, ``Z`` before the
  ``R``), a VIN of 17 characters without I, O or Q, a plate of 5–8 letters and digits with both, a
  tracking number as UPS (``1Z`` and 16), FedEx (12 or 15 digits) or USPS (20–22 digits) print it, a
  lab's test code (4–5 digits, a LOINC ``2345-7``), a storage or rental unit (``B214``, ``C-17``), a
  North American phone number whose area code and exchange start 2–9 (or an international one), a
  US, Canadian or UK postcode.
* **Names** (:data:`COMPANY_COLUMNS`): a column naming a company or a brand holds no value in one of
  the shapes a name generator makes companies in — "Reilly, Diaz and Lewis", "Chen and Sons",
  "Wells PLC", "Stewart-Griffin" — which no tire is sold under and no parcel is sent from.

A free-text column, a title or a city is not read: measures 41–43 and 59 read text, and a city's name
has no form to check short of a gazetteer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec

#: North American, with or without +1 and separators, or international (another country code).
_PHONE = r"(?:\+?1[ .-]?)?\(?[2-9]\d{2}\)?[ .-]?[2-9]\d{2}[ .-]?\d{4}|\+[2-9]\d{6,14}"
#: Column names -> the forms their values take in the trade, as one whole-match expression.
CODE_FORMS: dict[frozenset[str], re.Pattern[str]] = {
    frozenset({"phone", "mobile", "phone_number", "mobile_number", "contact_phone", "cell_phone"}): re.compile(_PHONE),
    frozenset({"zip", "zip_code", "postcode", "postal_code"}): re.compile(
        r"\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}"
    ),
    frozenset({"tire_size", "tyre_size"}): re.compile(r"(?:P|LT)?\d{3}/\d{2}Z?R\d{2}"),
    frozenset({"vin"}): re.compile(r"[A-HJ-NPR-Z0-9]{17}"),
    frozenset({"plate", "plate_number", "license_plate", "licence_plate"}): re.compile(
        r"(?=[A-Z0-9 -]*\d)(?=[A-Z0-9 -]*[A-Z])[A-Z0-9]{1,4}[ -]?[A-Z0-9]{1,5}"
    ),
    frozenset({"tracking_number"}): re.compile(r"1Z[0-9A-Z]{16}|\d{12}|\d{15}|\d{20,22}"),
    frozenset({"panel_code", "test_code"}): re.compile(r"\d{4,5}|\d{1,5}-\d"),
    frozenset({"unit_code", "unit_number"}): re.compile(r"[A-Z]{0,2}-?\d{1,4}[A-Z]?"),
}
#: Columns that name a company or a brand.
COMPANY_COLUMNS = frozenset(
    {"company", "company_name", "brand", "manufacturer", "sender_name", "vendor", "supplier", "employer"}
)
_SURNAME = r"[A-Z][a-z']+"
#: The shapes a name generator makes companies in (Faker's en_US: a surname and a suffix, two joined,
#: three listed).
GENERATED_COMPANY = re.compile(
    rf"{_SURNAME}(?: (?:Inc|LLC|Ltd|PLC|Group|and Sons)|-{_SURNAME}|, {_SURNAME} and {_SURNAME})"
)


def _plate_fits(value: str) -> bool:
    letters_digits = value.replace(" ", "").replace("-", "")
    return 5 <= len(letters_digits) <= 8


def value_fits_trade(column: str, value: str) -> bool | None:
    """Whether ``value`` of ``column`` is written as its trade writes it; None for a column not read.

    >>> value_fits_trade("tire_size", "225/45R17"), value_fits_trade("tire_size", "R2364")
    (True, False)
    >>> value_fits_trade("brand", "Michelin"), value_fits_trade("brand", "Wells PLC"), value_fits_trade("note", "x")
    (True, False, None)
    """
    for names, form in CODE_FORMS.items():
        if column in names:
            if not form.fullmatch(value):
                return False
            return _plate_fits(value) if "plate" in column else True
    if column in COMPANY_COLUMNS:
        return not GENERATED_COMPANY.fullmatch(value)
    return None


def trade_values(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, str, str, bool]]:
    """(table, column, value, fits) for every filled value of a column the measure reads."""
    for table in spec.tables:
        for column in table.columns:
            if column.enum or column.type != "text":
                continue
            for row in rows.get(table.name, []):
                value = row.get(column.name)
                if isinstance(value, str) and value and (fits := value_fits_trade(column.name, value)) is not None:
                    yield table.name, column.name, value, fits


@dataclass
class TradeFormCounts:
    """Values of codes and company names read against their trade's forms."""

    trade_values_checked: int = 0
    trade_values_off_form: int = 0


def trade_values_off_form(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> TradeFormCounts:
    """Measure 100 over ``rows`` (table -> rows; the seed by default)."""
    out = TradeFormCounts()
    for *_, fits in trade_values(spec, spec.seed if rows is None else rows):
        out.trade_values_checked += 1
        out.trade_values_off_form += not fits
    return out
