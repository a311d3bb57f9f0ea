"""What a user knows and how an agent gets from it to the right records (the backwards expansion).

The user is identified by email (or full name + date, used only when a query shows it is unique);
a record as people name theirs (:mod:`.naming`: a code they were given, a date, what it is, or the
same of a record it references, "my loan from 2026-02-10 for the book with genre fiction") in words
that no other record *of the same user* fits — never by its id. The calls an agent needs to get
there (lookup, listing, details) join the chain.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from envs import Episode
from envs.formats.spec import EnvSpec

from ..domains.domain import Domain, Entity
from ..domains.sqlgen import pk
from ..gate.oracle import Oracle
from ..tools.toolkit import ToolMeta
from .chain import Chain
from .naming import handles, single_out
from .phrasing import Phrasing


class UserKnowledge:
    """Identity, record descriptions and the read calls that resolve them."""

    domain: Domain
    spec: EnvSpec
    meta: dict[str, ToolMeta]
    oracle: Oracle
    rng: random.Random
    say: Phrasing
    user: Entity
    base: Episode
    rejections: Counter[str]

    def _tool(self, role: str, entity: str, **where: Any) -> ToolMeta | None:
        for m in self.meta.values():
            if m.role == role and m.entity == entity and all(getattr(m, k) == v for k, v in where.items()):
                return m
        return None

    def identify_user(self, chain: Chain) -> bool:
        row = self.oracle.rows[self.user.name][chain.user_id]
        email = next((a for a in self.user.attributes if a.kind == "email" and a.lookup), None)
        by_email = self._tool("lookup", self.user.name, attribute=email.name) if email else None
        combo = next(
            (
                m
                for m in self.meta.values()
                if m.entity == self.user.name and m.role == "lookup" and m.attribute and "+" in m.attribute
            ),
            None,
        )
        if combo is not None and (by_email is None or self.rng.random() < 0.3):
            name_attr, date_attr = combo.attribute.split("+")  # type: ignore[union-attr]
            n = self.base.query(
                f"SELECT count(*) AS n FROM {self.user.table} WHERE lower({name_attr}) = lower(:a) "
                f"AND {date_attr} = :b",
                {"a": row[name_attr], "b": row[date_attr]},
            )[0]["n"]
            if n == 1:
                chain.call(combo.tool, **{name_attr: row[name_attr], date_attr: row[date_attr]})
                chain.facts.append(self.say.name_fact(row[name_attr], date_attr, row[date_attr]))
                return True
        if by_email is None or email is None:
            self.rejections["no_user_lookup"] += 1
            return False
        chain.call(by_email.tool, **{email.name: row[email.name]})
        chain.facts.append(self.say.email_fact(row[email.name]))
        return True

    def owned(self, entity: Entity, user_id: str) -> list[dict[str, Any]]:
        """The user's records of ``entity`` in the seed."""
        return [r for r in self.oracle.rows[entity.name].values() if self.oracle.owner_of(entity, r) == user_id]

    def largest_amount(self, user_id: str) -> float:
        """The largest sum on the user's records (a permit's valuation, a loan): what they deal in."""
        amounts = [
            float(row[a.name])
            for e in self.domain.entities
            if e.name != self.user.name
            for row in self.owned(e, user_id)
            for a in e.attributes
            if a.kind == "money" and isinstance(row.get(a.name), int | float) and not isinstance(row.get(a.name), bool)
        ]
        return max(amounts, default=0.0)

    def locate(
        self, chain: Chain, entity: Entity, row: dict[str, Any], *, avoid: str | None = None, details: bool = False
    ) -> str | None:
        """Add the calls that let an agent find ``row`` from the user's id; return how the user names it
        (None: the user cannot name it unambiguously, and the caller picks another record).

        ``details``: the agent must read the record itself (to see why a request is refused).
        """
        if entity.name == self.user.name:
            return "my account"
        owner = next((r for r in entity.references if r.role == "owner"), None)
        if owner is None:
            self.rejections["no_owner_path"] += 1
            return None
        if owner.entity != self.user.name:  # one level of indirection: user -> parent -> record
            parent = self.domain.entity(owner.entity)
            parent_row = self.oracle.rows[parent.name].get(row[owner.column])
            if parent_row is None or self.locate(chain, parent, parent_row) is None:
                return None
        listing = next(
            (
                m
                for m in self.meta.values()
                if m.role == "list" and m.entity == entity.name and owner.column in m.inputs
            ),
            self._tool("list", entity.name),
        )
        if listing is None:
            self.rejections["no_listing"] += 1
            return None
        chain.call(listing.tool, **{owner.column: row[owner.column]})
        siblings = self.owned(entity, chain.user_id)
        if chain.episode is not None:  # records this task created count too
            parent = self.domain.entity(owner.entity)
            holders = (  # parents this task made count too: a booking made, then its service request
                [chain.user_id]
                if owner.entity == self.user.name
                else [
                    r[pk(parent)]
                    for r in chain.episode.dump(parent.table)
                    if self.oracle.owner_of(parent, r) == chain.user_id
                ]
            )
            siblings = chain.episode.query(
                f"SELECT * FROM {entity.table} WHERE {owner.column} IN (SELECT value FROM json_each(:holders))",
                {"holders": json.dumps(holders)},
            )
        phrase = self.describe(chain, entity, row, siblings, avoid=avoid)
        if phrase is None:
            return None
        reader = self._tool("details", entity.name)
        if reader is not None and (details or self.rng.random() < 0.45):  # a careful agent checks the record
            chain.call(reader.tool, **{pk(entity): row[pk(entity)]})
        return phrase

    def describe(
        self,
        chain: Chain,
        entity: Entity,
        row: dict[str, Any],
        siblings: list[dict[str, Any]],
        *,
        avoid: str | None = None,
    ) -> str | None:
        """How the user names ``row`` so that none of their other records (``siblings``) fits
        (:mod:`.naming`), or None when they cannot; their only record of its kind by its noun alone. The
        agent reads a referenced record named in it."""
        others = [s for s in siblings if s[pk(entity)] != row[pk(entity)]]
        today = self.spec.clock.date()
        options = handles(self.domain, entity, row, self.oracle.rows, self.rng, avoid=avoid, today=today)
        chosen = single_out(options, others, self.oracle.rows, self.rng)
        if not others:  # their only one: "my membership", not "my membership whose next credit date is …"
            return self.say.record_name(entity.human, [])
        if chosen is None:
            self.rejections["no_natural_name"] += 1
            return None
        for h in chosen:
            if h.via is not None:
                parent = self.domain.entity(h.via.entity)
                details = self._tool("details", parent.name)
                if details is not None:
                    chain.call(details.tool, **{pk(parent): row[h.via.column]})
        before = [h.prefix for h in chosen if h.prefix]
        return self.say.record_name(entity.human, [h.fragment for h in chosen if not h.prefix], before)

    def name_public_record(self, chain: Chain, entity: Entity, row: dict[str, Any]) -> str | None:
        """How a user names a record that is not theirs (a flight, a class, a product): by a value a
        lookup tool finds it with; the lookup joins the chain. None when there is no such lookup."""
        for a in entity.attributes:
            m = self._tool("lookup", entity.name, attribute=a.name)
            if m is None or row.get(a.name) is None:
                continue
            n = self.base.query(
                f"SELECT count(*) AS n FROM {entity.table} WHERE lower({a.name}) = lower(:v)", {"v": row[a.name]}
            )[0]["n"]
            if n == 1:
                chain.call(m.tool, **{a.name: row[a.name]})
                return f"the {entity.human} {row[a.name]}" if a.kind == "title" else f"{entity.human} {row[a.name]}"
        return None
