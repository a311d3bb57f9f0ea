"""Whether instructions read as a customer writes them (docs/synthesis.md, "Customer voice").

A person asks each question once, says "one of my bikes" only when they have more than one bike the
request could be about, and does not open half their messages with the same words. Read from the
task files and the environment alone, so the scan runs on any catalog:

* a *repeated question*: one instruction asking the same question twice (case and punctuation aside;
  "Afterwards, tell me my new balance due." asks as a question mark does);
* a *stock phrase*'s share: of the instructions, those that hold it ("one of my", "of my two", ...),
  and each *opening*'s share (the first three words after a greeting);
* an *unfounded "one of"*: "one of my X" / "of my two X" where fewer than two of the user's records
  could be acted on, that is where the gold write, run on each of the user's records of its table
  after the gold calls before it, succeeds on fewer than two;
* a *bare amount*: money in cents said with no currency ("For the estimate, it's 74.45.");
* the most repeated word n-grams, by how many instructions hold them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import EnvFarmError
from ..formats.task import Task
from .spec import user_table
from .tool_sql import one_reference

#: Phrases a generator reaches for; each should stay a small share of a catalog's instructions.
STOCK_PHRASES = ("one of my", "another one of my", "of my two", "the other one", "could you also", "and then")
#: Phrases that say the user holds several records the request could be about.
SEVERAL = re.compile(r"\b(?:(?:another )?one of my|of my two)(?: \w+){0,2}? (\w+s)\b", re.IGNORECASE)
_GREETING = re.compile(r"^(?:hi there|hi|hello|hey|good (?:morning|afternoon|evening))[,!.]?\s*", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.?!]+[.?!]")
#: A sentence that asks for something to be told, question mark or not ("Afterwards, tell me my new …").
_ASKS = re.compile(r"\?$|^(?:afterwards, |also, |and )?(?:tell me|can you tell me|let me know|i just need to know)\b")
_WORD = re.compile(r"[a-z0-9']+")
#: An amount in cents said with no currency ("For the estimate, it's 74.45."), as no customer says it.
BARE_AMOUNT = re.compile(r"(?<![$€£\d.,:])\b\d{1,3}(?:,\d{3})*\.\d{2}\b(?![\d%])")


def questions(instruction: str) -> list[str]:
    """The questions of ``instruction`` (sentences asking to be told something), lower-cased with
    punctuation and spacing evened out."""
    said = (s.strip().lower() for s in _SENTENCE.findall(instruction))
    return [" ".join(_WORD.findall(s)) for s in said if _ASKS.search(s)]


def repeated_questions(instruction: str) -> list[str]:
    """The questions ``instruction`` asks more than once."""
    return [q for q, n in Counter(questions(instruction)).items() if n > 1 and q]


def opening(instruction: str, words: int = 3) -> str:
    """The first ``words`` words of ``instruction`` after any greeting, lower-cased."""
    return " ".join(_WORD.findall(_GREETING.sub("", instruction.strip()).lower())[:words])


def ngrams(instruction: str, n: int) -> set[str]:
    """The distinct word ``n``-grams of ``instruction``."""
    words = _WORD.findall(instruction.lower())
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


@dataclass
class CustomerVoice:
    """The counts of one catalog or environment; shares are of ``instructions``."""

    instructions: int = 0
    repeated_questions: int = 0
    phrases: Counter[str] = field(default_factory=Counter)
    openings: Counter[str] = field(default_factory=Counter)
    several_claims: int = 0
    unfounded_several: int = 0
    bare_amounts: int = 0
    grams: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, other: CustomerVoice) -> None:
        self.instructions += other.instructions
        self.repeated_questions += other.repeated_questions
        self.several_claims += other.several_claims
        self.unfounded_several += other.unfounded_several
        self.bare_amounts += other.bare_amounts
        self.phrases.update(other.phrases)
        self.openings.update(other.openings)
        self.grams.update(other.grams)
        for k, v in other.examples.items():
            self.examples.setdefault(k, []).extend(v)

    def share(self, count: int) -> float:
        return round(count / self.instructions, 4) if self.instructions else 0.0

    def summary(self, top: int = 10) -> dict[str, Any]:
        """The figures as plain data: counts, each phrase's and the top openings' and n-grams' shares."""
        return {
            "instructions": self.instructions,
            "repeated_questions": self.repeated_questions,
            "several_claims": self.several_claims,
            "unfounded_several": self.unfounded_several,
            "bare_amounts": self.bare_amounts,
            "phrase_shares": {p: self.share(self.phrases[p]) for p in STOCK_PHRASES},
            "top_openings": {o: self.share(n) for o, n in self.openings.most_common(top)},
            "top_ngrams": {g: self.share(n) for g, n in self.grams.most_common(top)},
        }


def _owner_path(spec: Any, table: str, user: str) -> list[tuple[str, str]] | None:
    """The (table, column) steps from ``table`` up to the user table through single references."""
    tables = {t.name: t for t in spec.tables}
    path: list[tuple[str, str]] = []
    seen = {table}
    while table != user:
        t = tables[table]
        step = next(
            ((fk.table, col) for fk in t.foreign_keys if fk.table not in seen and (col := one_reference(t, fk.table))),
            None,
        )
        ups = [fk.table for fk in t.foreign_keys if fk.table == user]
        if ups:
            step = (user, one_reference(t, user) or "")
        if step is None or not step[1]:
            return None
        path.append((table, step[1]))
        seen.add(step[0])
        table = step[0]
    return path


def _owner(rows: Mapping[str, Mapping[Any, dict[str, Any]]], path: list[tuple[str, str]], row: dict[str, Any]) -> Any:
    value: Any = None
    for i, (_table, column) in enumerate(path):
        value = row.get(column)
        if i + 1 < len(path):
            row = rows[path[i + 1][0]].get(value) or {}
    return value


def actionable_records(env: Any, task: Task, call_index: int) -> tuple[str, int] | None:
    """The table gold call ``call_index`` acts on, and how many of that record's owner's records of
    it would take the same call after the gold calls before it; ``None`` where the call names no
    record of a table the user owns."""
    spec = env.spec
    call = task.gold_actions[call_index]
    user = user_table(spec)
    if user is None:
        return None
    episode = env.episode(task)
    try:
        for t in spec.tables:
            key = t.primary_key[0] if len(t.primary_key) == 1 else None
            if t.name == user or key is None or not isinstance(call.arguments.get(key), str | int):
                continue
            path = _owner_path(spec, t.name, user)
            if path is None:
                continue
            rows = {
                name: {r[spec.table(name).primary_key[0]]: r for r in episode.dump(name)}
                for name in {p[0] for p in path[1:]} | {t.name}
            }
            target = rows[t.name].get(call.arguments[key])
            if target is None:
                continue
            owner = _owner(rows, path, target)
            mine = [k for k, r in rows[t.name].items() if _owner(rows, path, r) == owner]
            return t.name, sum(_takes(env, task, call_index, key, k) for k in mine)
        return None
    finally:
        episode.close()


def _takes(env: Any, task: Task, call_index: int, arg: str, key: Any) -> bool:
    """Whether gold call ``call_index``, on record ``key`` instead, succeeds where the user asks for
    it: after the gold calls before it (a membership resumed first can be paused next)."""
    episode = env.episode(task)
    try:
        for done in task.gold_actions[:call_index]:
            episode.call_tool(done.tool, done.arguments, actor=done.actor)
        call = task.gold_actions[call_index]
        episode.call_tool(call.tool, {**call.arguments, arg: key}, actor=call.actor)
        return True
    except EnvFarmError:
        return False
    finally:
        episode.close()


def unfounded(env: Any, task: Task) -> bool:
    """Whether ``task``'s instruction says "one of my X" (or "of my two X") of a table where fewer than
    two of the user's records could take the gold write on it."""
    claimed = {m.group(1).lower() for m in SEVERAL.finditer(task.instruction)}
    best: dict[str, int] = {}
    for i, c in enumerate(task.gold_actions):
        if env.tools[c.tool].kind != "write":
            continue
        found = actionable_records(env, task, i)
        if found is not None:
            best[found[0]] = max(best.get(found[0], 0), found[1])
    return any(table.split("_")[-1] in claimed and n < 2 for table, n in best.items())


def customer_voice(env: Any, tasks: Sequence[Task], *, grams: Iterable[int] = (4,), examples: int = 3) -> CustomerVoice:
    """The customer-voice counts of ``tasks`` of ``env`` (an ``envs.Environment``)."""
    out = CustomerVoice()
    for task in tasks:
        text = task.instruction
        out.instructions += 1
        lowered = text.lower()
        out.phrases.update(p for p in STOCK_PHRASES if p in lowered)
        out.openings[opening(text)] += 1
        for n in grams:
            out.grams.update(ngrams(text, n))
        if repeated_questions(text):
            out.repeated_questions += 1
            out.examples.setdefault("repeated_question", []).append(text)
        if BARE_AMOUNT.search(text):
            out.bare_amounts += 1
            out.examples.setdefault("bare_amount", []).append(text)
        if SEVERAL.search(text):
            out.several_claims += 1
            if unfounded(env, task):
                out.unfounded_several += 1
                out.examples.setdefault("unfounded_several", []).append(text)
    for k in out.examples:
        out.examples[k] = out.examples[k][:examples]
    return out
