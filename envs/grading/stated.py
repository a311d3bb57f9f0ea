"""Conditions only the user can state: a policy line that lets an action wait on what the user says.

"Open a dispute only after the cardholder says they tried to resolve it with the merchant, unless it
is fraud." No record holds whether the cardholder called the merchant: the agent learns it only by
asking, so a task whose gold makes that dispute rests on the user saying it, and the user's facts
must hold it (:func:`missing_statements`, checked by ``check_env``). The line is read from its words:
the action ("Open a dispute"), who must say it, the clause they say, and an exception ("unless it is
fraud": a call whose arguments name it does not wait on the statement). The action governs the write
tools whose description starts with it or whose name holds its every word ("Flag a card charge as
personal": ``flag_personal_card_charge``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec

_LINE = re.compile(
    r"^(?P<action>[a-z][a-z ]*?) only (?:after|when|if|once) the (?P<who>[a-z][a-z ]*?) "
    r"(?P<verb>says|states|confirms|reports)(?: that)? (?P<clause>[^,;.]+)"
    r"(?P<rest>[^.]*)\.?$",
    re.I,
)
_UNLESS = re.compile(r"\bunless (?:it is|it's|the \w+ is) (?:a |an )?(?P<value>[a-z][a-z ]*[a-z])", re.I)
#: A clause that asks instead of stating ("says which document they provided") is no fact to hold.
_QUESTION = re.compile(r"^(?:which|what|whether|how|when|where|who|why|if)\b", re.I)
_FIRST_PERSON = (
    (r"\bthey were\b", "I was"),
    (r"\bthey are\b", "I am"),
    (r"\bthey're\b", "I'm"),
    (r"\bthey've\b", "I've"),
    (r"\bthemselves\b", "myself"),
    (r"\bthey\b", "I"),
    (r"\btheir\b", "my"),
    (r"\bthem\b", "me"),
)
_STOP = frozenset({"a", "an", "the", "as", "to", "for", "of", "on", "any"})


def first_person(clause: str) -> str:
    """The clause as the user says it.

    >>> first_person("they tried to resolve it with the merchant")
    'I tried to resolve it with the merchant'
    """
    out = clause.strip()
    for pattern, repl in _FIRST_PERSON:
        out = re.sub(pattern, repl, out, flags=re.I)
    return out


@dataclass(frozen=True)
class Stated:
    """A condition the user must state: the policy line, its action, what the user says, the exception."""

    line: str
    action: str
    statement: str
    unless: str | None = None

    def governs(self, spec: EnvSpec) -> list[str]:
        """The agent's write tools of ``spec`` the action names (never the hand-over; the user's own
        tools are no call the policy binds)."""
        words = {_stem(w) for w in re.findall(r"[a-z]+", self.action.lower())} - _STOP
        out = []
        for tool in spec.tools:
            if tool.kind != "write" or tool.actor != "agent" or tool.name == "transfer_to_human_agent":
                continue
            named = {_stem(w) for w in tool.name.split("_")}
            if tool.description.lower().startswith(self.action.lower() + " ") or words <= named:
                out.append(tool.name)
        return out

    def exempts(self, arguments: Mapping[str, Any]) -> bool:
        """Whether a call with ``arguments`` is the exception ("unless it is fraud": reason fraud)."""
        if self.unless is None:
            return False
        said = {str(v).replace("_", " ").lower() for v in arguments.values() if isinstance(v, str)}
        return self.unless.lower() in said

    def said_in(self, texts: Iterable[str]) -> bool:
        """Whether one of ``texts`` (the user's facts) holds the statement."""
        want = _plain(self.statement)
        return any(want in _plain(t) for t in texts)


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", text.lower().replace("’", "'")))


def statement(verb: str, clause: str) -> str:
    """What the user says, in their words: "I tried to resolve it with the merchant", "I confirm it
    was a personal purchase", "I'm reporting a problem with it"."""
    said = first_person(clause)
    if verb.lower() == "confirms":
        return f"I confirm {said}"
    if verb.lower() == "reports":
        return f"I'm reporting {said}"
    return said[:1].upper() + said[1:]


def read_stated(line: str) -> Stated | None:
    """The condition a policy line states, or None when it states none.

    >>> s = read_stated("Open a dispute only after the cardholder says they tried to resolve it with "
    ...                 "the merchant, unless it is fraud.")
    >>> s.action, s.statement, s.unless
    ('Open a dispute', 'I tried to resolve it with the merchant', 'fraud')
    >>> read_stated("Verify a dependent only when the employee says which document they provided.") is None
    True
    """
    text = line.strip().removeprefix("- ").strip()
    m = _LINE.match(text)
    if m is None or _QUESTION.match(m["clause"].strip()):
        return None
    unless = _UNLESS.search(m["rest"])
    return Stated(text, m["action"].strip(), statement(m["verb"], m["clause"]), unless["value"] if unless else None)


def policy_conditions(texts: Iterable[str]) -> list[Stated]:
    """Every condition the user must state that the lines of ``texts`` (a policy, help articles) hold."""
    found: dict[str, Stated] = {}
    for text in texts:
        for line in text.splitlines():
            s = read_stated(line)
            if s is not None:
                found.setdefault(s.line, s)
    return list(found.values())


def missing_statements(spec: EnvSpec, conditions: Iterable[Stated], task: Any) -> list[tuple[int, Stated]]:
    """Each gold write of ``task`` (a ``Task``) that waits on a condition its user never states:
    (the call's index, the condition). The user's words are the instruction and every fact."""
    said = [task.instruction, *task.user.known_facts, *task.user.reveal_if_asked]
    governed = [(c, set(c.governs(spec))) for c in conditions]
    out = []
    for i, call in enumerate(task.gold_actions):
        for c, tools in governed:
            if call.tool in tools and not c.exempts(call.arguments) and not c.said_in(said):
                out.append((i, c))
    return out
