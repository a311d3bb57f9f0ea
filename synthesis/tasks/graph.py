"""The tool dependency graph (networkx ``DiGraph``), from which tasks are expanded.

An edge A -> B means A helps to call B:

* ``data``: A's output provides one of B's inputs (the same column, or a foreign key to it);
* ``state``: A's effect establishes B's precondition (A leaves a record in a state B requires).

Generated environments carry exact tool metadata (``ToolMeta``). Hand-written environments have
none, so their graph is inferred from the spec: a tool's parameters are matched against the
columns of the tables its steps read.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import networkx as nx

from envs.formats.spec import EnvSpec

from ..tools.toolkit import ToolMeta

GraphFormat = Literal["json", "graphml", "png"]


def graph_from_meta(meta: list[ToolMeta]) -> nx.DiGraph[str]:
    """The exact graph of a generated environment."""
    g: nx.DiGraph[str] = nx.DiGraph()
    for m in meta:
        g.add_node(m.tool, kind=m.kind, entity=m.entity, role=m.role)
    for a in meta:
        outs = set(a.outputs)
        for b in meta:
            if a.tool == b.tool:
                continue
            keys = sorted(outs & set(b.inputs.values()))
            states = sorted(set(a.produces) & set(b.requires))
            if states:  # the more specific relation: A leaves records in the state B needs
                g.add_edge(a.tool, b.tool, kind="state", keys=",".join(states + keys))
            elif keys:
                g.add_edge(a.tool, b.tool, kind="data", keys=",".join(keys))
    return g


_TABLE_REF = re.compile(r"\b(?:from|join|update|into)\s+\"?([a-z_][a-z0-9_]*)", re.IGNORECASE)


def graph_from_spec(spec: EnvSpec) -> nx.DiGraph[str]:
    """An inferred graph for an environment without generator metadata."""
    columns = {t.name: {c.name for c in t.columns} for t in spec.tables}
    g: nx.DiGraph[str] = nx.DiGraph()
    produced: dict[str, set[str]] = {}
    for tool in spec.tools:
        g.add_node(tool.name, kind=tool.kind, entity="", role="")
        tables = {m.group(1) for s in tool.steps for m in _TABLE_REF.finditer(s.sql)} & set(columns)
        produced[tool.name] = set().union(*(columns[t] for t in tables)) if tables else set()
    for a in spec.tools:
        for b in spec.tools:
            if a.name == b.name:
                continue
            keys = sorted(produced[a.name] & set(b.parameters.get("properties", {})))
            keys = [k for k in keys if k.endswith("_id") or k in ("email",)]
            if keys:
                g.add_edge(a.name, b.name, kind="data", keys=",".join(keys))
    return g


def graph_to_json(g: nx.DiGraph[str]) -> dict[str, Any]:
    """Node-link JSON (stable order), as saved beside a generated environment."""
    data: dict[str, Any] = nx.node_link_data(g, edges="edges")
    data["nodes"] = sorted(data["nodes"], key=lambda n: n["id"])
    data["edges"] = sorted(data["edges"], key=lambda e: (e["source"], e["target"]))
    return data


def graph_from_json(data: dict[str, Any]) -> nx.DiGraph[str]:
    g: nx.DiGraph[str] = nx.DiGraph(nx.node_link_graph(data, edges="edges"))
    return g


def export_graph(g: nx.DiGraph[str], path: Path, fmt: GraphFormat) -> None:
    """Write the graph as JSON, GraphML or a PNG drawing."""
    if fmt == "json":
        path.write_text(json.dumps(graph_to_json(g), indent=1) + "\n", encoding="utf-8")
    elif fmt == "graphml":
        nx.write_graphml(g, path)
    else:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(14, 10))
        pos = nx.spring_layout(g, seed=7, k=1.2)
        colors = ["#d62728" if g.nodes[n].get("kind") == "write" else "#1f77b4" for n in g.nodes]
        nx.draw_networkx_nodes(g, pos, node_color=colors, node_size=500, alpha=0.85, ax=ax)
        nx.draw_networkx_labels(g, pos, font_size=7, ax=ax)
        data_edges = [(a, b) for a, b, d in g.edges(data=True) if d.get("kind") == "data"]
        state_edges = [(a, b) for a, b, d in g.edges(data=True) if d.get("kind") == "state"]
        nx.draw_networkx_edges(g, pos, edgelist=data_edges, alpha=0.25, arrows=True, ax=ax)
        nx.draw_networkx_edges(g, pos, edgelist=state_edges, edge_color="#d62728", style="dashed", ax=ax)
        ax.set_title("Tool dependency graph (red: write tools; dashed: state edges)")
        ax.axis("off")
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
