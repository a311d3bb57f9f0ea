"""Read tools of a generated environment: details by id, lookups by natural keys, listings, search."""

from __future__ import annotations

from typing import Any

from envs.engine.compile import quote_ident

from ..domains.domain import Entity
from ..domains.sqlgen import pk
from .toolkit import TEXT_KINDS, ToolBuilderBase, ToolMeta, a_, id_schema, object_schema, param_schema


class ReadTools(ToolBuilderBase):
    """Adds the read tools of each entity."""

    def details(self, e: Entity) -> None:
        children = [
            (c, r) for c in self.domain.entities for r in c.references if r.entity == e.name and r.role == "owner"
        ]
        extra = "".join(
            f", (SELECT json_group_array({quote_ident(pk(c))}) FROM {quote_ident(c.table)} "
            f"WHERE {quote_ident(r.column)} = t.{quote_ident(pk(e))}) AS {quote_ident(c.table)}"
            for c, r in children
        )
        name = f"get_{e.name}_details"
        owned = f", with the ids of its {', '.join(c.table.replace('_', ' ') for c, _ in children)}" if children else ""
        self.add(
            {
                "name": name,
                "kind": "read",
                "description": f"Get the full record of {a_(e.human)} by its id{owned}.",
                "parameters": object_schema({pk(e): id_schema(e)}, [pk(e)]),
                "steps": [
                    {
                        "kind": "query",
                        "bind": "rec",
                        "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {pk(e)} = :{pk(e)}",
                        "message": f"No {e.human} with id {{{pk(e)}}}",
                    },
                    {
                        "kind": "return",
                        "shape": "one",
                        "json_columns": [c.table for c, _ in children],
                        "sql": f"SELECT t.*{extra} FROM {quote_ident(e.table)} t WHERE t.{pk(e)} = :{pk(e)}",
                        "message": f"No {e.human} with id {{{pk(e)}}}",
                    },
                ],
            },
            ToolMeta(
                name,
                "read",
                e.name,
                "details",
                inputs={pk(e): f"{e.name}.{pk(e)}"},
                outputs=self.outputs(e) + [f"{c.name}.{pk(c)}" for c, _ in children],
            ),
        )

    def lookups(self, e: Entity) -> None:
        for a in e.attributes:
            if not a.lookup:
                continue
            name = f"find_{e.name}_by_{a.name}"
            match = (
                f"lower(trim({a.name})) = lower(trim(:{a.name}))" if a.kind in TEXT_KINDS else f"{a.name} = :{a.name}"
            )
            missing = f"No {e.human} with {a.name.replace('_', ' ')} {{{a.name}}}"
            steps: list[dict[str, Any]] = [
                {
                    "kind": "require",
                    "sql": f"SELECT EXISTS (SELECT 1 FROM {quote_ident(e.table)} WHERE {match})",
                    "message": missing,
                },
                {
                    "kind": "return",
                    "shape": "one" if a.unique else "many",
                    "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {match} ORDER BY {pk(e)}",
                    **({"message": missing} if a.unique else {}),
                },
            ]
            what = "the" if a.unique else "every"
            self.add(
                {
                    "name": name,
                    "kind": "read",
                    "description": f"Find {what} {e.human} with the given {a.name.replace('_', ' ')} "
                    f"(case-insensitive).",
                    "parameters": object_schema({a.name: param_schema(a.kind, a.values, "")}, [a.name]),
                    "steps": steps,
                },
                ToolMeta(
                    name,
                    "read",
                    e.name,
                    "lookup",
                    inputs={a.name: f"{e.name}.{a.name}"},
                    outputs=self.outputs(e),
                    attribute=a.name,
                ),
            )
        names = [a for a in e.attributes if a.kind == "person_name"]
        dated = [a for a in e.attributes if a.kind == "date" or a.kind == "zip"]
        if e.name == self.domain.user_entity and names and dated:
            n, d = names[0], dated[0]
            name = f"find_{e.name}_by_name_and_{d.name}"
            match = f"lower({n.name}) = lower(trim(:{n.name})) AND {d.name} = :{d.name}"
            self.add(
                {
                    "name": name,
                    "kind": "read",
                    "description": f"Find {e.human}s by full name and {d.name.replace('_', ' ')}.",
                    "parameters": object_schema(
                        {n.name: param_schema(n.kind, None, "Full name"), d.name: param_schema(d.kind, None, "")},
                        [n.name, d.name],
                    ),
                    "steps": [
                        {
                            "kind": "require",
                            "sql": f"SELECT EXISTS (SELECT 1 FROM {quote_ident(e.table)} WHERE {match})",
                            "message": f"No {e.human} named {{{n.name}}} with {d.name.replace('_', ' ')} {{{d.name}}}",
                        },
                        {
                            "kind": "return",
                            "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {match} ORDER BY {pk(e)}",
                        },
                    ],
                },
                ToolMeta(
                    name,
                    "read",
                    e.name,
                    "lookup",
                    inputs={n.name: f"{e.name}.{n.name}", d.name: f"{e.name}.{d.name}"},
                    outputs=self.outputs(e),
                    attribute=f"{n.name}+{d.name}",
                ),
            )

    def listings(self, e: Entity) -> None:
        status = e.lifecycle.field if e.lifecycle else None
        for ref in e.references:
            parent = self.domain.entity(ref.entity)
            name = f"list_{e.table}_for_{ref.ref_name}"
            props: dict[str, Any] = {ref.column: id_schema(parent)}
            cond = f"{ref.column} = :{ref.column}"
            if status and e.lifecycle:
                props[status] = {
                    **param_schema("enum", e.lifecycle.states, f"Only {e.table.replace('_', ' ')} in this {status}")
                }
                cond += f" AND (:{status} IS NULL OR {status} = :{status})"
            self.add(
                {
                    "name": name,
                    "kind": "read",
                    "description": f"List the {e.table.replace('_', ' ')} of {a_(parent.human)}"
                    f"{', optionally only those with a given ' + status if status else ''}.",
                    "parameters": object_schema(props, [ref.column]),
                    "steps": [
                        {
                            "kind": "query",
                            "bind": "parent",
                            "sql": f"SELECT * FROM {quote_ident(parent.table)} WHERE {pk(parent)} = :{ref.column}",
                            "message": f"No {parent.human} with id {{{ref.column}}}",
                        },
                        {
                            "kind": "return",
                            "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {cond} ORDER BY {pk(e)}",
                        },
                    ],
                },
                ToolMeta(
                    name,
                    "read",
                    e.name,
                    "list",
                    inputs={ref.column: f"{parent.name}.{pk(parent)}"},
                    outputs=self.outputs(e),
                ),
            )

    def search(self, e: Entity) -> None:
        filters = [a for a in e.attributes if a.kind == "enum"]
        # people are not searched by date (a birth date is no search criterion)
        dated = [a for a in e.attributes if a.kind in ("date", "datetime")] if e.name != self.domain.user_entity else []
        if not e.lifecycle and not filters and not dated:
            return
        props: dict[str, Any] = {}
        conds = []
        if e.lifecycle:
            props[e.lifecycle.field] = param_schema("enum", e.lifecycle.states, "")
            conds.append(f"(:{e.lifecycle.field} IS NULL OR {e.lifecycle.field} = :{e.lifecycle.field})")
        for a in filters:
            props[a.name] = param_schema("enum", a.values, "")
            conds.append(f"(:{a.name} IS NULL OR {a.name} = :{a.name})")
        taken = {a.name for a in e.attributes} | {r.column for r in e.references}
        for a in dated:  # a date range: on or after ``_from``, on or before ``_to`` (days, for datetimes too)
            low, high = f"{a.name}_from", f"{a.name}_to"
            if {low, high} & taken:
                continue
            what = a.name.replace("_", " ")
            props[low] = param_schema("date", None, f"Only those whose {what} is on or after this date")
            props[high] = param_schema("date", None, f"Only those whose {what} is on or before this date")
            conds.append(f"(:{low} IS NULL OR date({a.name}) >= :{low})")
            conds.append(f"(:{high} IS NULL OR date({a.name}) <= :{high})")
        if not conds:
            return
        props["limit"] = {
            "type": "integer",
            "minimum": 1,
            "maximum": 50,
            "description": "At most this many (default 20)",
        }
        name = f"search_{e.table}"
        self.add(
            {
                "name": name,
                "kind": "read",
                "description": f"Search {e.table.replace('_', ' ')} by "
                f"{', '.join(p for p in props if p != 'limit')}; every filter is optional.",
                "parameters": object_schema(props, []),
                "steps": [
                    {
                        "kind": "return",
                        "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {' AND '.join(conds)} "
                        f"ORDER BY {pk(e)} LIMIT coalesce(:limit, 20)",
                    }
                ],
            },
            ToolMeta(name, "read", e.name, "search", outputs=self.outputs(e)),
        )

    # -- writes ---------------------------------------------------------------------------------------
