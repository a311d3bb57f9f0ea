"""Referentially consistent seed rows for a domain (Faker, seeded: same seed, same rows).

Parents are generated before children; every reference picks an existing parent row. Status
values are spread so that every transition has rows it applies to and rows it refuses, which the
procedural tests and the task generator both need. The rows are coherent (see ``coherence``):

* a reference that another reference leads to is copied from it (a credit entry's passenger is
  its booking's passenger), never drawn on its own;
* a row in a before-state of its lifecycle has its event date after the clock, a row in an
  after-state at or before it, a row in a due-state after it or earlier on its day, set on the
  row or by picking a parent whose date fits (else the row takes a state that fits); about a
  fifth of before-state dates fall inside the guards' hour windows (cancellable only until 3
  hours before, ...), so the time rules refuse some requests;
* the dates of one row are in time order (``timeline``): an end-like date a plausible gap after its
  start, a past event (``paid_on``, ``created_at``) at or before the clock, and on a row whose
  status says its event is to come (scheduled, booked ...) its coming dates not before the clock's
  day; the dates above stay where they are and the others move around them;
* a money attribute that names a parent's price starts equal to it (``fare_paid`` = ``fare``);
* a row under a parent that has ended for good (cancelled, refunded) takes its own called-off end
  state rather than an open one;
* no value has more rows in some states than a per-record limit allows (``limits``);
* a row dated by something that happened during its parent's span (an incident on a trip) is under a
  parent whose span has started (``bounds``);
* one thing is recorded once (``one_off``): one return of a purchase, one live subscription of a
  viewer, one live hold on a vehicle (on one free or already taken);
* a value keyed by another (``labels``) is drawn from its key's pool: a session's topic from what
  its tutor teaches, a licence type from those its business may hold.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from faker import Faker

from ..domains.bounds import started_columns
from ..domains.catalog_names import catalog_name, key_of_name
from ..domains.coherence import Agreement, agreements, price_links, resolve_agreement, under_ended_parent
from ..domains.domain import Attribute, Domain, Entity, Reference
from ..domains.filled_dates import transition_dates
from ..domains.forms import FormDraws
from ..domains.labels import Labels
from ..domains.limits import SeedLimits
from ..domains.money_bands import MoneyBands
from ..domains.one_off import Holdings
from ..domains.parent_states import parent_states
from ..domains.sqlgen import DomainError, pk
from ..domains.timeline import (
    ANCHORED,
    PLACED,
    TIME,
    ahead_span,
    date_in,
    far_reach,
    record_dates,
    settle_record_dates,
    span,
)
from ..domains.timing import Timing, timing

DEFAULT_ROWS = (20, 200)
_MAX_ROWS = 900  # ids of seed rows stay below the first generated id (prefix + 1001)
_IN_WINDOW = 0.18  # share of before-state dates inside a guard's hour window
_PAST = 0.4  # share of past dates in a parent column that children's lifecycles read
_DUE_TODAY = 0.25  # share of due-state dates earlier on the clock's day (a customer may act now)


def entity_order(domain: Domain) -> list[Entity]:
    """Entities with every referenced entity before its referrers (DomainError on a cycle)."""
    done: list[Entity] = []
    seen: set[str] = set()
    visiting: set[str] = set()

    def visit(e: Entity) -> None:
        if e.name in seen:
            return
        if e.name in visiting:
            raise DomainError(f"entities reference each other in a cycle through '{e.name}'")
        visiting.add(e.name)
        for r in e.references:
            if r.entity != e.name:
                visit(domain.entity(r.entity))
        visiting.discard(e.name)
        seen.add(e.name)
        done.append(e)

    for e in domain.entities:
        visit(e)
    return done


def _row_count(domain: Domain, entity: Entity, rng: random.Random, rows: tuple[int, int]) -> int:
    lo, hi = entity.rows or rows
    referenced = any(r.entity == entity.name for e in domain.entities for r in e.references)
    if entity.rows is None:
        if entity.name == domain.user_entity:
            lo, hi = max(lo, 25), max(lo, min(hi, 60))
        elif not entity.references and referenced:
            lo, hi = lo, max(lo, min(hi, 40))
        else:
            lo, hi = max(lo, 30), max(lo, min(hi, 120))
    return min(rng.randint(lo, max(lo, hi)), _MAX_ROWS)


#: Where the row's number goes among a unique code's nine digits: spread, so that no code ends in its
#: row's id (a reviewer read plates "332703004" of vehicle VH0004).
_SPREAD = (3, 0, 7, 1, 5, 8, 2, 6, 4)
_PLATE_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"
#: World manufacturer identifiers, the first three characters of a VIN, by make.
_VIN_MAKERS = {
    "honda": "1HG", "ford": "1FA", "bmw": "WBA", "tesla": "5YJ", "toyota": "2T1", "volkswagen": "3VW", "kia": "KNA",
    "chevrolet": "1G1", "nissan": "1N4", "hyundai": "KMH", "subaru": "JF1", "mazda": "JM1",
}  # fmt: skip
_VIN_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"


def _unique_code(attr: Attribute, drawn: int, index: int) -> str:
    """A unique code from one draw and the row's number, shaped as its kind is printed: a plate as
    "7KDL214", a VIN as 17 characters, any other code as its prefix and nine digits. The row's number
    enters each through a bijection, so codes stay unique without showing it."""
    scrambled = (index * 337 + 211) % 1000  # 337 is prime to 1000: one code per row number below 1000
    if "plate" in attr.name:
        letters = "".join(_PLATE_LETTERS[drawn // 23**i % 23] for i in range(3))
        return f"{drawn % 9 + 1}{letters}{scrambled:03d}"
    if attr.name == "vin":
        # maker, five descriptor characters, a check digit, model year and plant, then a 6-digit serial
        chars = random.Random(drawn).choices(_VIN_CHARS, k=7)
        makers = sorted(_VIN_MAKERS.values())
        maker = makers[drawn % len(makers)]
        return f"{maker}{''.join(chars[:5])}{drawn % 10}{''.join(chars[5:])}{drawn % 1000:03d}{scrambled:03d}"
    digits = f"{drawn}{index:03d}"
    return f"{attr.prefix or ''}{''.join(digits[i] for i in _SPREAD)}"


#: The youngest age a seed person is drawn at: an account, a permit or a policy is held for years
#: before today (22 months of on-time gas bills), and at 18 its holder opened it at 16.
YOUNGEST = 21


def _within_horizon(days: int, drawn: int, name: str) -> timedelta:
    """``days`` from the clock, drawn up to ``drawn`` either way, with the days ahead scaled into the
    horizon of the date ``name``'s kind (a parcel expected within weeks); the draw stays the same, so
    every later value of the seed does too."""
    ahead = ahead_span(timedelta(days=drawn), name).days
    return timedelta(days=days * ahead // drawn if days > 0 else days)


def _value(attr: Attribute, fake: Faker, rng: random.Random, clock: datetime, row: dict[str, Any], index: int) -> Any:
    k = attr.kind
    name = attr.name
    if k == "person_name":
        return f"{fake.first_name()} {fake.last_name()}"
    if k == "first_name":
        return fake.first_name()
    if k == "last_name":
        return fake.last_name()
    if k == "company":
        return fake.company()
    if k == "email":
        person = next((v for v in row.values() if isinstance(v, str) and " " in v and v.istitle()), None)
        local = (person or fake.user_name()).lower().replace(" ", ".").replace("'", "")
        return f"{local}{index}@example.com" if attr.unique else f"{local}@example.com"
    if k == "phone":
        return "+1" + "".join(str(rng.randint(0, 9)) for _ in range(10))
    if k == "street_address":
        return fake.street_address()
    if k == "city":
        return fake.city()
    if k == "zip":
        return fake.postcode()
    if k == "country":
        return fake.country()
    if k == "code":
        return (
            _unique_code(attr, rng.randint(100000, 999999), index)
            if attr.unique
            else (f"{attr.prefix or ''}{rng.randint(1000, 9999)}")
        )
    if k in ("title", "text") and attr.examples:
        # a unique title takes its place in the list first, then a numbered edition of one
        if attr.unique:
            n = len(attr.examples)
            # a handle takes its number joined, as people number a taken one ("TacoTuesday2")
            taken = attr.examples[index % n]
            joint = " " if any(" " in e for e in attr.examples) else "_" if taken[-1].isdigit() else ""
            return taken + ("" if index < n else f"{joint}{index // n + 1}")
        return fake.random.choice(attr.examples)  # Faker's draws, as its sentences were: the row's others stay
    if k == "title":
        return " ".join(w.capitalize() for w in fake.words(rng.randint(2, 4)))
    if k == "text":
        return fake.sentence(nb_words=8)
    if k == "enum":
        return rng.choice(attr.values or [""])
    if k == "boolean":
        return rng.random() < 0.5
    if k == "url":
        return f"https://{fake.domain_name()}/{fake.slug()}"
    if k in ("money", "quantity", "integer", "percent", "rating"):
        default = {
            "money": (5.0, 500.0),
            "quantity": (0, 20),
            "integer": (1, 100),
            "percent": (0, 100),
            "rating": (1, 5),
        }
        lo, hi = attr.range or default[k]
        if k == "money":
            if lo <= 0 and rng.random() < 0.15:  # settled balances: guards like "balance equals 0" need some
                return 0.0
            return round(rng.uniform(lo, hi), 2)
        return rng.randint(int(lo), int(hi))
    if k == "date":
        if "birth" in name or name in ("dob",):
            # drawn over 18–80 and scaled into YOUNGEST–80: the same draws, so every later value stays
            drawn = rng.randint(18 * 365, 80 * 365) - 18 * 365
            days = YOUNGEST * 365 + drawn * (80 - YOUNGEST) // (80 - 18)
            return (clock - timedelta(days=days)).strftime("%Y-%m-%d")
        return (clock + _within_horizon(rng.randint(-120, 120), 120, name)).strftime("%Y-%m-%d")
    if k == "datetime":
        day = clock + _within_horizon(rng.randint(-60, 60), 60, name)
        return day.replace(hour=rng.randint(8, 18), minute=rng.choice((0, 15, 30, 45)), second=0).strftime(
            "%Y-%m-%d %H:%M:%S"
        )
    raise DomainError(f"attribute '{name}': unknown kind '{k}'")


def attribute_value(attr: Attribute, fake: Faker, rng: random.Random, clock: datetime) -> Any:
    """A value of ``attr``'s kind as seed rows have them (a Faker name, city, phone, code ...), for a
    value a user gives outside the seed: a new phone number, the country of a new address. A formed or
    pooled attribute's value is drawn from a stream the generic value seeds, so no other draw moves."""
    value = _value(attr, fake, rng, clock, {}, rng.randint(1, 999))
    if attr.format or attr.pool:
        return FormDraws(random.Random(str(value))).value(attr.name, attr.format, attr.pool, unique=False)
    return value


def _state_weights(entity: Entity) -> list[float]:
    assert entity.lifecycle is not None
    lc = entity.lifecycle
    return [1.0 + 2 * sum(s in t.from_states for t in lc.transitions) for s in lc.states]


class _Dates:
    """Date ranges for the event dates of one domain's seed rows."""

    def __init__(self, domain: Domain, clock: datetime) -> None:
        self.clock = clock
        self.now = clock.strftime(TIME)
        self.timings = {e.name: tm for e in domain.entities if (tm := timing(domain, e)) is not None}
        # parent columns that children's lifecycles read (via:ref.col) -> the children's hour windows
        self.driven: dict[tuple[str, str], set[int]] = {}
        for tm in self.timings.values():
            if tm.ref_name:
                ref = domain.entity(tm.entity).reference(tm.ref_name)
                assert ref is not None
                self.driven.setdefault((ref.entity, tm.column), set()).update(tm.windows)
        self.quotas: dict[tuple[str, ...], tuple[int, int]] = {}

    def _take(self, key: tuple[str, ...], share: float, least: int = 0) -> int | None:
        """Spread a share of rows evenly (not by chance), the first ``least`` rows always: the
        running count of picks, or None."""
        seen, hits = self.quotas.get(key, (0, 0))
        seen += 1
        pick = hits < max(least, round(share * seen))
        self.quotas[key] = (seen, hits + pick)
        return hits if pick else None

    def today(self) -> tuple[datetime, datetime]:
        """Earlier on the clock's day (a date equal to the clock's day counts as passed)."""
        return self.clock.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(seconds=1), self.clock

    def ranges(
        self,
        side: str,
        windows: tuple[int, ...],
        kind: str,
        key: tuple[str, ...],
        least: int = 0,
        column: str | None = None,
    ) -> list[tuple[datetime, datetime]]:
        """Ranges (lo, hi] to try in order: a window or beyond it for ``before``, the past for
        ``after``; for ``due`` a share ``_DUE_TODAY`` earlier today, else as ``before``.

        A share ``_IN_WINDOW`` of the before-dates of ``key`` (at least ``least``) go inside a
        window, the windows in turn. Dates of ``column`` reach no further than its kind's horizon
        (``horizons``): a parcel expected within weeks, not months.
        """
        c, far = self.clock, far_reach(column, ahead=True)
        if side == "after":
            return [(c - span(kind), c), (c - far_reach(column, ahead=False), c)]
        if side == "due":
            if self._take((*key, "due"), _DUE_TODAY) is not None:
                return [self.today(), *self.ranges("before", windows, kind, key, least, column)]
            side = "before"
        edges = [0, *windows]
        beyond = (c + timedelta(hours=edges[-1]), c + timedelta(hours=edges[-1]) + ahead_span(span(kind), column))
        if windows and (n := self._take(key, _IN_WINDOW, least)) is not None:
            i = n % len(windows)
            return [(c + timedelta(hours=edges[i]), c + timedelta(hours=edges[i + 1])), beyond, (c, c + far)]
        return [beyond, (c, c + far)]

    def mixed(self, key: tuple[str, ...], windows: set[int], kind: str, rng: random.Random) -> str | None:
        """A parent's date: some past, some inside each of the children's windows, the rest beyond."""
        side = "after" if self._take((*key, "past"), _PAST) is not None else "before"
        ranges = self.ranges(side, tuple(sorted(windows)), kind, key, least=len(windows), column=key[-1])
        if side == "after" and self._take((*key, "today"), 0.05, 1) is not None:  # for children due today
            ranges = [self.today(), *ranges]
        for lo, hi in ranges:
            if (v := date_in(kind, lo, hi, rng)) is not None:
                return v
        return None

    def fits(self, side: str, value: Any) -> bool:
        if value is None or side == "any":
            return True
        if side == "due":
            return bool(value >= self.now[:10])  # ahead, or earlier today
        return bool(value > self.now) if side == "before" else bool(value <= self.now)


class _References:
    """Chooses one entity's references: sources before the references they decide."""

    def __init__(self, domain: Domain, entity: Entity, order: dict[str, int], dates: _Dates) -> None:
        self.domain = domain
        self.entity = entity
        self.agree: dict[str, Agreement] = {a.target.column: a for a in agreements(domain, entity)}
        pos = {r.column: i for i, r in enumerate(entity.references)}
        self.order = sorted(entity.references, key=lambda r: (-order.get(r.entity, 0), pos[r.column]))
        self.timing: Timing | None = dates.timings.get(entity.name)
        self.driver: Reference | None = None  # the freely chosen reference that decides the event date
        self.event_ref: Reference | None = None
        self.own_column: str | None = None  # the row's own event date column
        self.kind = "date"
        if self.timing is not None and self.timing.ref_name:
            self.event_ref = ref = entity.reference(self.timing.ref_name)
            assert ref is not None
            attr = domain.entity(ref.entity).attribute(self.timing.column)
            self.kind = attr.kind if attr else "date"
            while ref.column in self.agree:
                ref = self.agree[ref.column].source
            self.driver = ref
        elif self.timing is not None:
            self.own_column = self.timing.column

    def event_date(self, driver_id: Any, rows: dict[str, dict[str, dict[str, Any]]]) -> Any:
        """The event date a row gets when its driver reference is ``driver_id``."""
        assert self.timing is not None and self.event_ref is not None and self.driver is not None
        chain: list[Agreement] = []
        ref = self.event_ref
        while ref.column != self.driver.column:
            chain.append(self.agree[ref.column])
            ref = self.agree[ref.column].source
        value = driver_id
        for ag in reversed(chain):
            value = resolve_agreement(ag, value, rows) if value is not None else None
        parent = rows[self.event_ref.entity].get(value) if value is not None else None
        return parent.get(self.timing.column) if parent else None


#: How many of one kind a user's record holds at most: the lines of an order, the payments of a repair,
#: the fines of a loan, the inspections of an offer.
PER_RECORD = {"part_of": 5, "owner": 3, "uses": 3}


def per_record_caps(domain: Domain, entity: Entity) -> dict[str, int]:
    """Reference column -> the most rows of ``entity`` one parent holds, for parents that are a user's
    records (they have an owner, and are not the user): a flight may carry any number of bookings and
    a customer place any number of orders, but one loan has a fine or two, not forty."""
    out = {}
    for ref in entity.references:
        parent = domain.entity(ref.entity)
        owned = any(r.role == "owner" for r in parent.references)
        if ref.entity != entity.name and parent.name != domain.user_entity and owned:
            out[ref.column] = PER_RECORD[ref.role]
    return out


def generate_seed(
    domain: Domain, *, seed: int, clock: datetime, rows: tuple[int, int] = DEFAULT_ROWS
) -> dict[str, list[dict[str, Any]]]:
    """Seed rows per table for ``domain`` (coherent: see the module docstring)."""
    rng = random.Random(f"{domain.id}:{seed}")
    fake = Faker("en_US")
    fake.seed_instance(rng.randint(0, 2**31))
    dates = _Dates(domain, clock)
    time_rng = random.Random(f"{domain.id}:{seed}:dates")  # its own draws: the other values stay as they were
    label_rng = random.Random(f"{domain.id}:{seed}:labels")
    formed = FormDraws(random.Random(f"{domain.id}:{seed}:forms"))  # its own draws, as time_rng's
    money_rng = random.Random(f"{domain.id}:{seed}:money-bands")  # apart, so labels draw as they did
    ordered = entity_order(domain)
    order = {e.name: i for i, e in enumerate(ordered)}
    out: dict[str, list[dict[str, Any]]] = {}
    ids: dict[str, list[str]] = {}
    by_id: dict[str, dict[str, dict[str, Any]]] = {}
    for entity in ordered:
        n = _row_count(domain, entity, rng, rows)
        if (named := catalog_name(domain, entity)) is not None:  # a reference list names each thing once
            n = min(n, len(named.examples or []))
            names = random.Random(f"{domain.id}:{seed}:names:{entity.name}").sample(list(named.examples or []), n)
        refs = _References(domain, entity, order, dates)
        tm = refs.timing
        lc = entity.lifecycle
        weights = _state_weights(entity) if lc else []
        driver_dates: dict[str, Any] = {}
        if refs.driver is not None:
            driver_dates = {p: refs.event_date(p, by_id) for p in ids.get(refs.driver.entity, [])}
        prices = price_links(domain, entity)
        limiter = SeedLimits(domain, entity)
        plan = record_dates(domain, entity)
        parent_fits = parent_states(domain, entity)
        caps = per_record_caps(domain, entity)
        holdings = Holdings(domain, entity)
        started = started_columns(domain, entity)
        later = {a for a in transition_dates(entity) if (d := entity.attribute(a)) and d.kind in ("date", "datetime")}
        labels = Labels(domain, entity, label_rng)
        money = MoneyBands(domain, entity, money_rng)
        held: Counter[tuple[str, Any]] = Counter()
        table_rows = []
        for i in range(1, n + 1):
            row: dict[str, Any] = {pk(entity): f"{entity.id_prefix}{i:04d}"}
            rank: dict[str, int] = {}  # dates placed on purpose (see timeline): the rest may move
            status = rng.choices(lc.states, weights)[0] if lc else None
            side = tm.state_class(status) if tm else "any"
            full = True
            for ref in refs.order:
                ag = refs.agree.get(ref.column)
                if ag is not None and row.get(ag.source.column) is not None:
                    row[ref.column] = resolve_agreement(ag, row[ag.source.column], by_id)
                    continue
                parents = ids.get(ref.entity, [])
                if ref.nullable and (not parents or rng.random() < 0.15):
                    row[ref.column] = None
                    continue
                if not parents:
                    raise DomainError(f"entity '{entity.name}' references '{ref.entity}', which has no rows")
                choices = parents
                if (rule := parent_fits.get(ref.column)) is not None:  # made, or moved on, under such a parent
                    choices = [
                        p for p in parents if rule.allows(status, by_id[ref.entity][p].get(rule.field))
                    ] or parents
                if (cap := caps.get(ref.column)) is not None:  # a user's record holds a few of these
                    choices = [p for p in choices if held[ref.column, p] < cap]
                    if not choices:
                        break
                if ref.column in holdings.once:  # one return of a purchase, and purchases left with none
                    choices = holdings.parents(ref.column, choices, parents)
                    if not choices:
                        break
                if ref.column in holdings.taking:  # one live hold on a vehicle
                    choices = holdings.untaken(ref.column, choices, status, by_id[ref.entity])
                    if not choices:
                        break
                if (start := started.get(ref.column)) is not None:  # an incident on a trip already started
                    today = dates.now[:10]
                    rows_of = by_id[ref.entity]
                    choices = [p for p in choices if str(rows_of[p].get(start) or "")[:10] <= today] or choices
                if ref is refs.driver and tm is not None and side != "any":
                    for lo, hi in dates.ranges(side, tm.windows, refs.kind, (entity.name, str(status))):
                        a, b = lo.strftime(TIME), hi.strftime(TIME)
                        fitting = [p for p in choices if (d := driver_dates.get(p)) is not None and a < d <= b]
                        if fitting:
                            choices = fitting
                            break
                row[ref.column] = rng.choice(choices)
            else:
                full = False
            if full:
                continue  # every record it could belong to holds as many as a record would
            for attr in entity.attributes:
                # a date a move fills is cleared or kept by the row's status later (settle_filled_dates),
                # so no draw is spent on it: the seed's other values stay what they were before it was nullable
                if attr.nullable and attr.name not in later and rng.random() < 0.15:
                    row[attr.name] = None
                    continue
                row[attr.name] = _value(attr, fake, rng, clock, row, i)
                if attr.format or attr.pool:  # the generic draw above is still spent: the rest stays
                    row[attr.name] = formed.value(f"{entity.name}.{attr.name}", attr.format, attr.pool, attr.unique)
                if attr.name == "make" and isinstance(row.get("vin"), str):  # drawn before its make
                    row["vin"] = _VIN_MAKERS.get(str(row["make"]).lower(), row["vin"][:3]) + row["vin"][3:]
                if attr is named:
                    row[attr.name] = names[i - 1]
                windows = dates.driven.get((entity.name, attr.name), set())
                if tm is not None and attr.name == refs.own_column:
                    windows = windows | set(tm.windows)
                    if side != "any":
                        for lo, hi in dates.ranges(
                            side, tm.windows, attr.kind, (entity.name, str(status)), column=attr.name
                        ):
                            if (v := date_in(attr.kind, lo, hi, rng)) is not None:
                                row[attr.name] = v
                                break
                        rank[attr.name] = ANCHORED
                        continue
                if windows or (entity.name, attr.name) in dates.driven:  # both sides of the time rules
                    row[attr.name] = dates.mixed((entity.name, attr.name), windows, attr.kind, rng) or row[attr.name]
                    rank[attr.name] = ANCHORED if (entity.name, attr.name) in dates.driven else PLACED
            if named is not None:  # the name's own key, so the keyed pool keeps each name once
                key_of_name(entity, named, row)
            labels.fit(row, lambda name, key: by_id[name].get(key))  # a topic its tutor teaches, drawn after it
            money.fit(row, lambda name, key: by_id[name].get(key))  # a basic plan's fee, after the plan
            for link in prices:
                parent_id = row.get(link.ref.column)
                parent = by_id[link.ref.entity].get(parent_id) if parent_id is not None else None
                if parent is not None and row[link.attribute] is not None and parent[link.parent_attribute] is not None:
                    row[link.attribute] = parent[link.parent_attribute]
            if lc is not None and tm is not None and refs.driver is not None:
                driver_id = row.get(refs.driver.column)
                date = driver_dates.get(driver_id) if driver_id is not None else None
                fit = [(s, w) for s, w in zip(lc.states, weights, strict=True) if dates.fits(tm.state_class(s), date)]
                if not dates.fits(side, date) and fit:  # no parent fits: take a state that fits the parent
                    status = rng.choices([s for s, _ in fit], [w for _, w in fit])[0]
            if lc is not None and status is not None:
                status = under_ended_parent(domain, entity, row, status, by_id)
            if lc is not None:
                alike = [
                    s for s in lc.states if s != status and (tm is None or tm.state_class(s) == tm.state_class(status))
                ]
                status = limiter.settle(row, status, alike)
                if status is not None:  # one live subscription per viewer: the others ended
                    status = holdings.settle(row, status, [s for s in alike if not limiter.passes(row, s)])
            if (status is None) if lc is not None else limiter.passes(row, None):
                continue  # every state that fits would break a per-record limit: the row is left out
            limiter.keep(row, status)
            holdings.keep(row, status)
            held.update((column, row[column]) for column in caps if row.get(column) is not None)
            if lc is not None:
                row[lc.field] = status
            settle_record_dates(row, plan, rank, clock, time_rng)
            table_rows.append(row)
        out[entity.table] = table_rows
        ids[entity.name] = [r[pk(entity)] for r in table_rows]
        by_id[entity.name] = {r[pk(entity)]: r for r in table_rows}
    return out
