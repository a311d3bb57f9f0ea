"""Natural-language rendering of tasks: the user's facts and requests, in varied phrasings.

The offline backend draws from these templates with the task generator's seeded RNG; the LLM
backend may rewrite the result, which is then re-verified (the facts must still be stated).
"""

from __future__ import annotations

import random
from typing import Any

_PERSONAS = [
    "A busy parent who answers in short sentences.",
    "A retired teacher, polite and a little wordy.",
    "A student on a tight budget who wants exact numbers.",
    "A small-business owner in a hurry.",
    "A careful person who double-checks every detail.",
    "A first-time customer, unsure of the terms.",
    "A frequent customer who knows the process well.",
    "Someone calling on a phone with a bad connection, who repeats things.",
    "A frustrated customer who wants this fixed today.",
    "A friendly person who chats a bit before getting to the point.",
]
_OPENINGS = ["Hi,", "Hello,", "Hi there,", "Good morning,", "Hey,", ""]
_CLOSINGS = ["Thanks!", "Thank you.", "Thanks a lot.", "", "Appreciate it.", "Cheers."]
_VERBS = {
    "cancel": "cancel",
    "renew": "renew",
    "return": "return",
    "pay": "pay",
    "approve": "approve",
    "reject": "reject",
    "close": "close",
    "reopen": "reopen",
    "suspend": "suspend",
    "reinstate": "reinstate",
    "confirm": "confirm",
    "complete": "complete",
    "refund": "refund",
    "ship": "ship",
    "archive": "archive",
}


def _human(name: str) -> str:
    return name.replace("_", " ").replace(".", "'s ")


class Phrasing:
    """Seeded, varied phrasings."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def persona(self) -> str:
        return self.rng.choice(_PERSONAS)

    def email_fact(self, email: str) -> str:
        return self.rng.choice(
            [f"My email is {email}.", f"You can find me under {email}.", f"The account email is {email}."]
        )

    def name_fact(self, name: str, key: str, value: Any) -> str:
        what = "date of birth" if "birth" in key else _human(key)
        return self.rng.choice([f"My name is {name} and my {what} is {value}.", f"I'm {name}, {what} {value}."])

    def record_phrase(self, entity: str, key: str, value: Any, kind: str) -> str:
        """How a user names one of their records, e.g. "my loan for 'Tidy Windows'"."""
        if "." in key:
            return f"my {entity} for '{value}'"
        if kind in ("date", "datetime"):
            return (
                self.rng.choice([f"my {entity} from {value}", f"the {entity} dated {value}"])
                if "due" not in key
                else (f"my {entity} due on {value}")
            )
        if kind == "title":
            return f"my {entity} '{value}'"
        return f"my {entity} with {_human(key)} {value}"

    def id_phrase(self, entity: str, record_id: str) -> str:
        return self.rng.choice([f"{entity} {record_id}", f"my {entity} {record_id}"])

    def record_fact(self, phrase: str) -> str:
        return f"The request is about {phrase}."

    def request(self, verb: str, phrase: str, extra: dict[str, Any], *, first: bool = True) -> str:
        """A request sentence: what to do, to which record, with any details."""
        action = _VERBS.get(verb)
        if action is None:
            words = verb.split("_")
            if len(words) > 1 and words[0] in ("mark", "report", "flag", "set"):
                action = f"{words[0]} {phrase} as {' '.join(words[1:])}"
            else:
                action = f"{' '.join(words)} {phrase}"
        else:
            action = f"{action} {phrase}"
        details = "".join(f" The {_human(k)} should be {v}." for k, v in extra.items())
        if not first:
            return (
                self.rng.choice(
                    [f"Then please also {action}.", f"After that, {action}.", f"I'd also like to {action}."]
                )
                + details
            )
        return (
            self.rng.choice(
                [
                    f"I'd like to {action}.",
                    f"Could you please {action}?",
                    f"Please {action}.",
                    f"I need you to {action}.",
                ]
            )
            + details
        )

    def ask_value(self, column: str) -> str:
        return self.rng.choice(
            [f"Afterwards, tell me my new {_human(column)}.", f"Also, what is my {_human(column)} after that?"]
        )

    def ask_record_value(self, phrase: str, column: str) -> str:
        return self.rng.choice(
            [
                f"What is the {_human(column)} of {phrase}?",
                f"Can you tell me the {_human(column)} of {phrase}?",
                f"I just need to know the {_human(column)} of {phrase}.",
            ]
        )

    def param_value(self, name: str, schema: dict[str, Any]) -> Any:
        t = schema.get("type")
        if t == "number":
            return round(self.rng.uniform(5, 60), 2)
        if t == "integer":
            return self.rng.randint(max(1, schema.get("minimum", 1)), schema.get("maximum", 5))
        if t == "boolean":
            return True
        if "reason" in name or "note" in name or "comment" in name:
            return self.rng.choice(["Plans changed", "No longer needed", "Found a better option", "Moving away"])
        return "As discussed"

    def instruction(self, facts: list[str], requests: list[str]) -> str:
        parts = [self.rng.choice(_OPENINGS), *facts, *requests, self.rng.choice(_CLOSINGS)]
        return " ".join(p for p in parts if p)
