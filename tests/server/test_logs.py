"""Structured logs: one JSON object per line, with episode ids and other context as fields."""

from __future__ import annotations

import io
import json
import logging
import sys

import pytest

from server.logs import JsonFormatter

from .conftest import LiveServer


def _formatted(record: logging.LogRecord) -> dict:
    line = JsonFormatter().format(record)
    assert "\n" not in line
    return json.loads(line)


def test_a_record_is_one_json_line_with_its_extra_fields() -> None:
    record = logging.makeLogRecord(
        {"name": "envfarm.server", "levelname": "INFO", "msg": "episode %s", "args": ("created",), "created": 0.5}
    )
    record.episode_id, record.env = "ep_1", "clinic"
    record.color_message = "episode \x1b[36mcreated\x1b[0m"  # what uvicorn adds: not ours, not for a log pipeline
    assert _formatted(record) == {
        "ts": 0.5,
        "time": "1970-01-01T00:00:00",
        "level": "info",
        "logger": "envfarm.server",
        "msg": "episode created",
        "episode_id": "ep_1",
        "env": "clinic",
    }


def test_an_exception_is_a_field_of_its_line() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("envfarm.server").makeRecord(
            "envfarm.server", logging.ERROR, __file__, 1, "could not log call", None, sys.exc_info()
        )
    data = _formatted(record)
    assert data["level"] == "error" and "ValueError: boom" in data["exc"]


def test_the_server_logs_episodes_by_id(server: LiveServer, caplog: pytest.LogCaptureFixture) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("envfarm.server")
    logger.addHandler(handler)
    try:
        with caplog.at_level(logging.INFO, logger="envfarm.server"), server.http() as c:
            episode_id = c.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
            c.delete(f"/episodes/{episode_id}")
    finally:
        logger.removeHandler(handler)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    mine = [line for line in lines if line.get("episode_id") == episode_id]
    assert [line["msg"] for line in mine] == ["episode created", "episode closed"]
    assert mine[0]["env"] == "clinic" and mine[0]["task"] == "clinic-001" and mine[0]["level"] == "info"
