"""The declarative description of a dual-control domain: a service the agent runs and a device the
customer holds, and the faults either side can have.

A domain is data (the built-in ones live in ``synthesis.dual.devices``): everything else — tables,
tools, policy, user guide, tasks — is derived from it, so adding a domain is adding a description.
The order of ``faults`` is the policy's troubleshooting order, and also the order in which the
device shows their symptoms: the first fault present masks the ones after it, as a phone in
airplane mode shows "airplane mode" whatever the line's state (tau2's telecom).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Side = Literal["agent", "user"]
_NAME = r"^[a-z][a-z0-9_]*$"
_SAFE_TEXT = re.compile(r"^[A-Za-z0-9 ,._-]+$")  # values and symptoms become SQL literals: no quotes


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Fault(_Strict):
    """One thing that can be wrong, on one side, in one column, and how it is put right.

    ``symptom`` is what the device's status shows while this is the first fault present;
    ``observed`` is how the customer describes it (what they see, never the cause); ``fix_tool``
    sets ``column`` back to ``good`` (or flips it, for a ``toggle``) and is called by the side that
    owns the column: the agent for the service, the customer for the device.
    """

    id: str = Field(pattern=_NAME)
    side: Side
    column: str = Field(pattern=_NAME)
    meaning: str = Field(min_length=1, description="What the column says, for the table's description")
    good: bool | str
    bad: bool | str
    symptom: str = Field(min_length=1)
    observed: str = Field(min_length=1)
    fix_tool: str = Field(pattern=_NAME)
    fix_says: str = Field(min_length=1, description="The fix tool's description")
    fix_step: str = Field(min_length=1, description="The imperative of the fix, for the policy's workflow")
    toggle: bool = Field(
        False,
        description="The fix flips a switch of the device (airplane mode): done when nothing was wrong, it "
        "breaks what worked, so acting without diagnosing shows in the state",
    )

    @model_validator(mode="after")
    def _values_fit(self) -> Fault:
        if type(self.good) is not type(self.bad) or self.good == self.bad:
            raise ValueError(f"fault {self.id}: good and bad must be two different values of one type")
        if self.toggle and (self.side != "user" or not isinstance(self.good, bool)):
            raise ValueError(f"fault {self.id}: only a switch of the device (a boolean, side user) toggles")
        for value in (self.good, self.bad, self.symptom):
            if isinstance(value, str) and not _SAFE_TEXT.match(value):
                raise ValueError(f"fault {self.id}: {value!r} must be plain words (it goes into SQL)")
        return self

    @property
    def column_type(self) -> Literal["boolean", "text"]:
        return "boolean" if isinstance(self.good, bool) else "text"


class Holding(_Strict):
    """One side's record: the service line (agent) or the device (customer)."""

    table: str = Field(pattern=_NAME)
    noun: str = Field(min_length=1, description="How people call it: 'router', 'broadband subscription'")
    id_prefix: str = Field(pattern=r"^[A-Z]{1,4}$")
    kinds: list[str] = Field(min_length=2, description="Plans of the service, models of the device")


class DualDomain(_Strict):
    """A service with a customer-held device, and what can go wrong on both."""

    id: str = Field(pattern=_NAME)
    name: str
    sector: str
    company: str
    clock: str = "2026-03-10T09:00:00"
    service: Holding
    device: Holding
    working: str = Field(description="What the device's status shows when nothing is wrong")
    status_tool: str = Field(pattern=_NAME, description="The customer's look at the device's status")
    status_says: str
    settings_tool: str = Field(pattern=_NAME, description="The customer's look at the device's settings")
    service_tool: str = Field(pattern=_NAME, description="The agent's look at the service")
    faults: list[Fault] = Field(min_length=4)

    @model_validator(mode="after")
    def _holds_together(self) -> DualDomain:
        if not _SAFE_TEXT.match(self.working):
            raise ValueError(f"{self.id}: working {self.working!r} must be plain words (it goes into SQL)")
        for side in ("agent", "user"):
            if sum(f.side == side for f in self.faults) < 2:
                raise ValueError(f"{self.id}: at least two faults on the {side}'s side make combinations")
        names = [f.id for f in self.faults]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: fault ids repeat")
        columns = [(f.side, f.column) for f in self.faults]
        if len(set(columns)) != len(columns):
            raise ValueError(f"{self.id}: two faults share a column")
        tools = [f.fix_tool for f in self.faults] + [self.status_tool, self.settings_tool, self.service_tool]
        if len(set(tools)) != len(tools):
            raise ValueError(f"{self.id}: tool names repeat")
        if self.service.table == self.device.table:
            raise ValueError(f"{self.id}: the service and the device need tables of their own")
        return self

    def faults_of(self, side: Side) -> list[Fault]:
        return [f for f in self.faults if f.side == side]

    def holding(self, side: Side) -> Holding:
        return self.service if side == "agent" else self.device

    def key(self, side: Side) -> str:
        """The primary key column of a side's table (``service_id`` / ``device_id``)."""
        return "service_id" if side == "agent" else "device_id"


def sql_literal(value: bool | str) -> str:
    """A fault value as an SQL literal (booleans are stored as 0/1; text was checked to be plain)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return f"'{value}'"
