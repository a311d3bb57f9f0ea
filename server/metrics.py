"""Prometheus metrics, one registry per app (so tests can build isolated apps)."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


class Metrics:
    """The farm's counters, gauges and histograms."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.episodes_live = Gauge("envfarm_episodes_live", "Episodes whose state is in memory", registry=self.registry)
        self.episodes_created = Counter("envfarm_episodes_created", "Episodes created", ["env"], registry=self.registry)
        self.calls = Counter(
            "envfarm_tool_calls",
            "Tool calls by environment, tool and outcome",
            ["env", "tool", "outcome"],
            registry=self.registry,
        )
        self.call_latency = Histogram(
            "envfarm_tool_call_seconds",
            "Tool call latency including logging",
            ["env"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.replays = Counter("envfarm_episode_replays", "Episodes rebuilt from their log", registry=self.registry)
        self.replayed_calls = Counter(
            "envfarm_replayed_calls",
            "Logged writes run again to rebuild episodes (those before a saved snapshot are not)",
            registry=self.registry,
        )
        self.resets = Counter(
            "envfarm_episode_resets", "Episodes put back in their initial state", registry=self.registry
        )
        self.stale_copies = Counter(
            "envfarm_stale_copies",
            "In-memory episode copies found stale at commit (another replica called the episode)",
            registry=self.registry,
        )
        self.unstorable_rows = Counter(
            "envfarm_unstorable_call_rows",
            "Call rows the store refused, stored as an error record instead (or dropped)",
            registry=self.registry,
        )
        self.quota_refusals = Counter(
            "envfarm_quota_refusals",
            "Calls refused because a call-log quota was used up (quota: episode or tenant)",
            ["quota"],
            registry=self.registry,
        )
        self.paced_requests = Counter(
            "envfarm_paced_requests",
            "Requests held back because their tenant kept the farm busy beyond its allowance",
            ["tenant"],
            registry=self.registry,
        )
        self.paced_seconds = Counter(
            "envfarm_paced_seconds",
            "Time requests were held back for their tenant's pace",
            ["tenant"],
            registry=self.registry,
        )
        self.env_builds = Counter(
            "envfarm_environment_builds",
            "Seed database builds by environment and outcome (a failed one is not tried again)",
            ["env", "outcome"],
            registry=self.registry,
        )
        self._call_children: dict[tuple[str, str, str], tuple[Any, Any]] = {}

    def call_done(self, env: str, tool: str, outcome: str, seconds: float) -> None:
        """Count one tool call and observe its latency.

        The labelled children are looked up once per (env, tool, outcome): ``labels()`` costs more
        than the increment itself, and this runs on every call.
        """
        key = (env, tool, outcome)
        children = self._call_children.get(key)
        if children is None:
            children = self._call_children[key] = (
                self.calls.labels(env=env, tool=tool, outcome=outcome),
                self.call_latency.labels(env=env),
            )
        children[0].inc()
        children[1].observe(seconds)

    def paced(self, tenant: str, seconds: float) -> None:
        """Count one request held back for ``tenant``'s pace, and how long it waited."""
        self.paced_requests.labels(tenant=tenant).inc()
        self.paced_seconds.labels(tenant=tenant).inc(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)
