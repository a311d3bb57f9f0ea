"""The task format: what the user wants, how a correct episode ends, and how reward is made.

The expected final state is never stored: it is what the gold actions produce from the task's
initial state (the environment seed plus ``initial_patch``). See ``docs/formats.md``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from .spec import Identifier, Model, Side, is_agent

RewardComponent = Literal["state", "outputs", "assertions"]
_ALL_COMPONENTS: tuple[RewardComponent, ...] = ("state", "outputs", "assertions")


class UserProfile(Model):
    """Who the user is, for a user simulator.

    ``known_facts`` the user states freely; ``reveal_if_asked`` only when the agent asks for them;
    ``behaviour`` says how they act (tau2-style users: some push back after a refusal, some hold a
    wrong belief about a date, a status or a fee until the agent shows them the record).
    """

    persona: str = ""
    known_facts: list[str] = []
    reveal_if_asked: list[str] = []
    behaviour: list[str] = Field(
        [], description="How the user acts in the conversation (pushes back once after a refusal, holds a wrong belief)"
    )


class ToolCall(Model):
    """One tool call: the name, its arguments, and who makes it (the user, in a dual-control
    environment, on their own device)."""

    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = {}
    actor: Side = Field("agent", exclude_if=is_agent)


class Assertion(Model):
    """A checklist item: ``sql`` is a SELECT whose first column of the first row must be truthy."""

    description: str = Field(min_length=1)
    sql: str = Field(min_length=1)


class Refusal(Model):
    """A request the agent must turn down: nothing it asks for may happen, and the answer says so
    and why (docs/formats.md, "Answers").

    ``reason`` holds the values that make the reason (the record's status, the date too close, the
    limit), each to be stated in a sentence that turns the request down or gives a reason;
    ``claims`` are words that would say it was done ("renewed"): a sentence with one of them and no
    negation claims the action (``envs.grading.answers``). ``rule`` is the id of the spec rule that forbids
    it (``EnvSpec.rules``; None when the record's status does, or the user declines); ``call`` is
    what acting on it would be: run on the gold final state, it succeeds when the rule lives in the
    policy only and fails when a tool enforces it.
    """

    request: str = Field(min_length=1, description="What the user asked for, in a few words")
    reason: list[str] = []
    claims: list[str] = []
    rule: str | None = None
    call: ToolCall | None = None


class PatchOp(Model):
    """A change applied to the seed state before the task starts.

    ``insert`` adds ``rows``; ``update`` sets ``set`` on rows matching ``where``; ``delete`` removes
    rows matching ``where``. ``where`` is column = value equality.
    """

    op: Literal["insert", "update", "delete"]
    table: Identifier
    rows: list[dict[str, Any]] = []
    where: dict[str, Any] = {}
    set: dict[str, Any] = {}

    @model_validator(mode="after")
    def _shape_matches_op(self) -> PatchOp:
        if self.op == "insert" and (not self.rows or self.where or self.set):
            raise ValueError("an insert patch needs 'rows' and no 'where'/'set'")
        if self.op == "update" and (not self.where or not self.set or self.rows):
            raise ValueError("an update patch needs 'where' and 'set' and no 'rows'")
        if self.op == "delete" and (not self.where or self.rows or self.set):
            raise ValueError("a delete patch needs 'where' and no 'rows'/'set'")
        return self


class Task(Model):
    """A verifiable task in one environment."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    env: Identifier
    instruction: str = Field(min_length=1, description="What the user wants, in the user's words")
    user: UserProfile = UserProfile()
    initial_patch: list[PatchOp] = []
    gold_actions: list[ToolCall] = []
    outputs: list[str] = Field([], description="Facts the agent's final answer must state")
    distractors: list[str] = Field(
        [],
        description="Values the final answer must not state: those of the other candidates the task names, "
        "or of rules that are not the reason",
    )
    refusals: list[Refusal] = Field([], description="Requests the agent must turn down, saying so")
    answer: str | None = Field(None, description="A reference final answer that passes every answer check")
    assertions: list[Assertion] = []
    ignore: list[str] = Field([], description="Volatile columns left out of the state comparison, as 'table.column'")
    difficulty: Literal["easy", "medium", "hard"] = "medium"
    expects_change: bool = Field(True, description="Whether the gold actions change the state")
    reward_basis: list[RewardComponent] = Field(
        default_factory=lambda: list(_ALL_COMPONENTS),
        description="Components multiplied into the exact reward; each is 0 or 1",
    )
    tags: list[str] = []
    required_documents: list[str] = Field(
        [],
        exclude_if=lambda ids: not ids,
        description="Ids of the documents (rows of a full-text table) whose facts decide the task: the agent "
        "must find and read them",
    )

    @model_validator(mode="after")
    def _ignore_is_qualified(self) -> Task:
        for entry in self.ignore:
            if entry.count(".") != 1:
                raise ValueError(f"ignore entry '{entry}' must be 'table.column'")
        if not self.reward_basis:
            raise ValueError("reward_basis must name at least one component")
        return self
