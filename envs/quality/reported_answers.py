"""Two more correct-answer forms, from answers a reviewer wrote on real tasks (docs/synthesis.md,
"Seed 59") that the grader failed:

* ``names-the-record`` — a question answered with the record it is about named in sentences: its
  id, the date the user named it by, the asked value and its status ("Your carrier invoice CI0003,
  dated November 17, 2025: its amount is $5,150.29. It's currently submitted.");
* ``total-unchanged`` — a refused payment, refund or charge answered as another form does, then the
  total the policy may ask to be told, with the request's participle after it ("The total paid on it
  is unchanged.").

And three from the seed-61 review ("Seed 61"):

* ``number-words`` — a refusal whose reason is a short phrase with a number, said with the number in
  words, hyphenated and first ("continuous 1 month" as "a one-month continuous one");
* ``shared-label-total`` — a total over records of one kind, each named by its id with its amount,
  and the label they share ("Your two cancelled subscriptions are both sunday only: PS0025 at $11.84
  and PS0045 at $10.41, so together $22.25.");
* ``denied-distractor`` — a question answered, then a wrong value said not to be the case ("… is job
  board, not recruiter.").

And two from the seed-67 review ("Seed 67"):

* ``other-column-label`` — a refusal whose reason is a status, answered as ``reason-after`` does, then
  a label of another of the refused record's columns said in passing ("… it is cancelled. It's the
  full overhaul one.");
* ``change-from`` — what an amount would be, answered, then said as the change from a wrong amount
  to it ("… It would go from $73.77 to $98.77.").

And one from the column-statuses adversary's hold (docs/synthesis.md, "Gaming"):

* ``allowed-statuses`` — a refusal whose reason is a status, answered as ``reason-after`` does, then
  the statuses the rule allows said as the rule, and the record's own ("… Only draft or pending
  orders can be cancelled; yours is submitted."): the rule's statuses listed are no hedge.

And three from the seed-71 review ("Seed 71"):

* ``status-kept`` — a refusal on a rule other than the status, answered as ``because`` does (the
  reason in the refusal's sentence), after the refused record's status said as unchanged ("Your
  audit HA0010 is still scheduled. …");
* ``id-and-parent`` — a question answered as ``names-the-record`` does, or a refusal as
  ``reason-after`` does, with the record named by its id and its parent's ("(MD0018, on PS0030)");
* ``outcome-described`` — the reference answer of a task that makes writes and asks for a value,
  then the record a write was done to described by some of its labels, dates and amounts ("That was
  on the award flight RT-928200026, Taylorville, Coryland, 2026-03-21 and 21194.").

And one from a blind review of refusal grading:

* ``tool-message`` — an enforced refusal relayed as the tool's error says it, after the attempt ("I
  tried, but the system would not let me resume your campaign: Campaign AC0020 is draft; resume ad
  campaign needs it to be paused."): the deciding value said against the rule, in the tool's words.

Like :mod:`.natural_answers`, each is a complete correct answer, built without the grader.
"""

from __future__ import annotations

import re
from typing import Any

from ..engine import Environment
from ..errors import ToolError
from ..formats.task import Task
from .adversaries import flatten, participles
from .natural_answers import natural_answers

FORMS = (
    "names-the-record",
    "total-unchanged",
    "number-words",
    "shared-label-total",
    "denied-distractor",
    "other-column-label",
    "change-from",
    "allowed-statuses",
    "status-kept",
    "id-and-parent",
    "outcome-described",
    "tool-message",
)
_ID = re.compile(r"[A-Z]{1,4}-?\d{3,}")
_ISO_DAY = re.compile(r"(\d{4})-(\d\d)-(\d\d)")
_MONEY = re.compile(r"amount|price|cost|fee|balance|total|deposit|charge|refund|payment|fare|owed|due")
#: Requests whose participle names a sum of money as well as an event ("the total paid").
_MONEY_VERBS = frozenset({"pay", "prepay", "refund", "charge", "credit", "redeem", "deposit", "tip", "transfer"})
_MONTHS = re.findall(r"\w+", "January February March April May June July August September October November December")


def reported_answers(env: Environment, task: Task, results: list[Any]) -> dict[str, str]:
    """The forms that apply to ``task`` (none, one or both), given what its gold calls returned."""
    out = {}
    if task.outputs and not task.refusals and (named := _names_the_record(task, results)):
        out["names-the-record"] = named
    if task.refusals and (total := _total_unchanged(env, task)):
        out["total-unchanged"] = total
    if task.refusals and (spelled := _number_words(env, task)):
        out["number-words"] = spelled
    if len(task.outputs) == 1 and not task.refusals and (shared := _shared_label_total(task, results)):
        out["shared-label-total"] = shared
    if task.outputs and not task.refusals and (denied := _denied_distractor(task)):
        out["denied-distractor"] = denied
    if task.refusals and (passing := _other_column_label(env, task, results)):
        out["other-column-label"] = passing
    if len(task.outputs) == 1 and not task.refusals and (change := _change_from(task)):
        out["change-from"] = change
    if task.refusals and (allowed := _allowed_statuses(env, task)):
        out["allowed-statuses"] = allowed
    if task.refusals and (kept := _status_kept(env, task, results)):
        out["status-kept"] = kept
    if parent := _id_and_parent(env, task, results):
        out["id-and-parent"] = parent
    if task.outputs and not task.refusals and (outcome := _outcome_described(env, task, results)):
        out["outcome-described"] = outcome
    if task.refusals and (relayed := _tool_message(env, task)):
        out["tool-message"] = relayed
    return out


def _same(value: Any, output: str) -> bool:
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return abs(float(output) - float(value)) < 1e-9
        except ValueError:
            return False
    return str(value) == output


def _day(iso: str) -> str:
    m = _ISO_DAY.match(iso)
    return f"{_MONTHS[int(m[2]) - 1]} {int(m[3])}, {m[1]}" if m else iso


def _names_the_record(task: Task, results: list[Any]) -> str | None:
    """The one record holding the single output, named by its id, the user's date and its status."""
    if len(task.outputs) != 1:
        return None
    output = task.outputs[0]
    holding = {tuple(r) for result in results for r in flatten(result) if any(_same(v, output) for _, v in r)}
    if len(holding) != 1:
        return None
    record = list(next(iter(holding)))
    key = next((k for k, v in record if _same(v, output)), "")
    ids = [(k, str(v)) for k, v in record if k.endswith("_id") and _ID.fullmatch(str(v))]
    if not ids or any(str(v) in task.distractors for _, v in record if not _same(v, output)):
        return None
    noun = ids[0][0].removesuffix("_id").replace("_", " ")
    said = task.instruction
    dated = [str(v) for _, v in record if isinstance(v, str) and _ISO_DAY.fullmatch(v) and _day(v) in said]
    money = isinstance(record[[k for k, _ in record].index(key)][1], float) and _MONEY.search(key)
    value = f"${float(output):,.2f}" if money else output
    status = next((str(v) for k, v in record if re.search(r"status|state", k) and isinstance(v, str)), "")
    text = f"Your {noun} {ids[0][1]}" + (f", dated {_day(dated[0])}" if dated else "")
    text += f": its {key.replace('_', ' ')} is {value}."
    return text + (f" It's currently {status.replace('_', ' ')}." if status else "")


def _total_unchanged(env: Environment, task: Task) -> str | None:
    """The ``reason-after`` form, and for each refused payment, refund or charge its total unchanged."""
    said = []
    for refusal in task.refusals:
        verb = refusal.request.split()[0].lower()
        if verb in _MONEY_VERBS:
            said.append(f"The total {participles(verb)[0]} on it is unchanged.")
    if not said:
        return None
    base = natural_answers(env, task).get("reason-after")
    return f"{base} {' '.join(dict.fromkeys(said))}" if base else None


_NUMBER_NAMES = re.findall(r"\w+", "zero one two three four five six seven eight nine ten eleven twelve")
_LABEL = re.compile(r"[a-z][a-z_ ]*")


def _spelled(phrase: str) -> str | None:
    """A short phrase with a number, the number in words, hyphenated to the word after it and put
    first ("continuous 1 month" → "one-month continuous"); None for other phrases."""
    words = phrase.replace("_", " ").split()
    at = next((i for i, w in enumerate(words) if w.isdigit() and int(w) < len(_NUMBER_NAMES)), None)
    if at is None or len(words) > 4 or at + 1 >= len(words):
        return None
    unit = words[at + 1].removesuffix("s") if words[at + 1] != "s" else words[at + 1]
    rest = words[:at] + words[at + 2 :]
    return " ".join([f"{_NUMBER_NAMES[int(words[at])]}-{unit}", *rest])


def _number_words(env: Environment, task: Task) -> str | None:
    """The ``reason-after`` form with each reason that is a phrase with a number said in words."""
    base = natural_answers(env, task).get("reason-after")
    if not base:
        return None
    text = base
    for refusal in task.refusals:
        for value in refusal.reason:
            spelled = _spelled(value)
            said = value.replace("_", " ")
            if spelled and said in text:
                text = text.replace(said, spelled)
    return text if text != base else None


def _shared_label_total(task: Task, results: list[Any]) -> str | None:
    """The records whose amounts add up to the one output, picked by a label the user said, when they
    share another label; each named by its id and amount."""
    try:
        total = float(task.outputs[0])
    except ValueError:
        return None
    records = {tuple(r) for result in results for r in flatten(result)}
    by_id = {str(r[0][1]): dict(r) for r in records if r and r[0][0].endswith("_id")}
    amounts = {k for r in by_id.values() for k, v in r.items() if isinstance(v, float)}
    labels = {k for r in by_id.values() for k, v in r.items() if isinstance(v, str) and _LABEL.fullmatch(v)}
    for field, key in sorted((f, k) for f in amounts for k in labels):
        groups: dict[str, list[str]] = {}
        for rid, r in sorted(by_id.items()):
            if isinstance(r.get(field), float) and isinstance(r.get(key), str):
                groups.setdefault(str(r[key]), []).append(rid)
        for value, ids in groups.items():
            rates = [float(by_id[i][field]) for i in ids]
            if len(ids) < 2 or abs(sum(rates) - total) > 0.005 or value.replace("_", " ") not in task.instruction:
                continue
            first = by_id[ids[0]]
            shared = [v for k, v in first.items() if k in labels - {key} and all(by_id[i].get(k) == v for i in ids)]
            if not shared:
                continue
            noun = next(iter(first)).removesuffix("_id").replace("_", " ").split()[-1]
            count = _NUMBER_NAMES[len(ids)] if len(ids) < len(_NUMBER_NAMES) else str(len(ids))
            each = " and ".join(f"{i} at ${a:,.2f}" for i, a in zip(ids, rates, strict=True))
            also, label = "both" if len(ids) == 2 else "all", str(shared[0]).replace("_", " ")
            head = f"Your {count} {value.replace('_', ' ')} {noun}s are {also} {label}"
            return f"{head}: {each}, so together ${total:,.2f}."
    return None


def _denied_distractor(task: Task) -> str | None:
    """The reference answer, with the first distractor said not to be the case after the label it
    states first (labels only; a label asked beside an amount keeps the amount's sentence after it)."""
    output = task.outputs[0]
    labels = [d for d in task.distractors if _LABEL.fullmatch(d) and d != output]
    said = f" {output}."
    if not labels or not _LABEL.fullmatch(output) or not task.answer or said not in task.answer:
        return None
    return task.answer.replace(said, f" {output}, not {labels[0].replace('_', ' ')}.", 1)


def _plain(value: Any) -> str:
    return " ".join(str(value).lower().replace("_", " ").split())


def _other_column_label(env: Environment, task: Task, results: list[Any]) -> str | None:
    """The ``reason-after`` form, then for the first refusal whose reason is a status, a label of
    another column of the refused record (one the user did not say) in a sentence of its own."""
    base = natural_answers(env, task).get("reason-after")
    columns = [c.enum for t in env.spec.tables for c in t.columns if c.enum]
    user = _plain(" ".join([task.instruction, *task.user.known_facts, *task.user.reveal_if_asked]))
    for refusal in task.refusals:
        said = {_plain(r) for r in refusal.reason}
        own = {_plain(v) for values in columns if any(_plain(v) in said for v in values) for v in values}
        others = {_plain(v) for values in columns for v in values} - own
        keys = {str(v) for v in (refusal.call.arguments.values() if refusal.call else ())}
        for record in (r for result in results for r in flatten(result)):
            values = [v for _, v in record if isinstance(v, str)]
            if not own or not keys & set(values) or not said & {_plain(v) for v in values}:
                continue
            passing = [_plain(v) for v in values if _plain(v) in others and _plain(v) not in user]
            if base and passing:
                return f"{base} It's the {passing[0]} one."
    return None


#: Where a tool's description or a rule says which statuses allow the action: the record, the statuses.
_ALLOWED_WHEN = re.compile(r"Allowed only when the ([\w ]+?) is ([\w ,]+?)(?:;|\.|$)")
_MUST_BE = re.compile(r"^the ([\w ]+?)(?:'s status)? must be (?:one of )?([\w ,]+?)\.?$")


def _allowed_statuses(env: Environment, task: Task) -> str | None:
    """The ``reason-after`` form, then for the first refusal whose reason is a status, the statuses
    its rule (or the refused tool's description) allows, said as the rule, and the record's own."""
    base = natural_answers(env, task).get("reason-after")
    columns = [{_plain(v) for v in c.enum} for t in env.spec.tables for c in t.columns if c.enum]
    for refusal in task.refusals:
        if not base or len(refusal.reason) != 1:
            continue
        reason = _plain(refusal.reason[0])
        rule = env.spec.rule(refusal.rule or "")
        tool = env.spec.tool(refusal.call.tool) if refusal.call is not None else None
        found = _MUST_BE.match(rule.text) if rule is not None else None
        found = found or (_ALLOWED_WHEN.search(tool.description) if tool is not None else None)
        if found is None:
            continue
        noun, allowed = found[1], [_plain(v) for v in re.split(r",\s*|\s+or\s+", found[2]) if v.strip()]
        if not any(reason in c and set(allowed) <= c for c in columns) or reason in allowed:
            continue
        verb, *rest = refusal.request.lower().split()
        listed = " or ".join([", ".join(allowed[:-1]), allowed[-1]] if len(allowed) > 1 else allowed)
        done = participles(verb)[0]
        # a record already in the state the request would give it is said to be so "already"
        own = f"already {reason}" if reason in {_plain(p) for p in participles(verb)} else reason
        if set(noun.split()) <= set(rest):  # the refused record is the one the rule names
            said = f"Only {listed} {_plural(noun)} can be {done}; yours is {own}."
        else:
            said = f"It can only be {done} while the {noun} is {listed}; your {noun} is {own}."
        return f"{base} {said}"
    return None


def _plural(noun: str) -> str:
    if re.search(r"(?:s|x|ch|sh)$", noun):
        return noun + "es"
    return noun[:-1] + "ies" if re.search(r"[^aeiou]y$", noun) else noun + "s"


def _change_from(task: Task) -> str | None:
    """For a question of what an amount would be (the reference answer says "would"), that answer,
    then the amount said as the change from a wrong amount (what it is now, in the review's task)."""
    try:
        after = float(task.outputs[0])
        before = next(float(d) for d in task.distractors if re.fullmatch(r"-?\d+(?:\.\d+)?", d))
    except (ValueError, StopIteration):
        return None
    if not task.answer or " would " not in f" {task.answer} " or before == after:
        return None
    return f"{task.answer.rstrip('.')}. It would go from ${before:,.2f} to ${after:,.2f}."


def _refused_record(task: Task, results: list[Any]) -> list[tuple[str, Any]] | None:
    """The first refused record as the gold reads showed it (its own id is the refused call's first
    argument: the record, then its owner)."""
    for refusal in task.refusals:
        key, value = next(iter(refusal.call.arguments.items()), ("", "")) if refusal.call else ("", "")
        for record in (r for result in results for r in flatten(result)):
            if record and record[0] == (key, value):
                return record
    return None


def _status_kept(env: Environment, task: Task, results: list[Any]) -> str | None:
    """The ``because`` form after the refused record's status said as kept, where no reason of the
    task is a status ("Your audit HA0010 is still scheduled. I can't cancel it because …")."""
    base = natural_answers(env, task).get("because")
    record = _refused_record(task, results)
    if not base or record is None:
        return None
    reasons = {_plain(v) for r in task.refusals for v in r.reason}
    status = next((str(v) for k, v in record if re.search(r"status|state", k) and isinstance(v, str)), "")
    if not status or _plain(status) in reasons:
        return None
    noun = record[0][0].removesuffix("_id").replace("_", " ")
    return f"Your {noun} {record[0][1]} is still {_plain(status)}. {base}"


def _parent(record: list[tuple[str, Any]]) -> tuple[str, str] | None:
    """The last id field of ``record`` after its own (a missed delivery's subscription)."""
    ids = [(k, str(v)) for k, v in record[1:] if k.endswith("_id") and _ID.fullmatch(str(v))]
    return ids[-1] if ids else None


def _id_and_parent(env: Environment, task: Task, results: list[Any]) -> str | None:
    """A question's ``names-the-record`` form, or a refusal's ``reason-after``, with the record's id
    and its parent's: "Your furniture payment FP0026 (on furniture order FO0106) …", "… (MD0018, on
    PS0030)"."""
    if task.outputs and not task.refusals:
        named = _names_the_record(task, results)
        record = next((r for result in results for r in flatten(result) if named and str(r[0][1]) in named), None)
        parent = _parent(record) if record else None
        if not named or record is None or parent is None:
            return None
        head = f"{record[0][0].removesuffix('_id').replace('_', ' ')} {record[0][1]}"
        noun = parent[0].removesuffix("_id").replace("_", " ")
        return named.replace(head, f"{head} (on {noun} {parent[1]})", 1)
    base = natural_answers(env, task).get("reason-after") if task.refusals else None
    record = _refused_record(task, results) if base else None
    parent = _parent(record) if record else None
    if not base or record is None or parent is None:
        return None
    noun = parent[0].removesuffix("_id").replace("_", " ")
    return f"{base} That is {record[0][1]}, on {noun} {parent[1]}."


def _outcome_described(env: Environment, task: Task, results: list[Any]) -> str | None:
    """The reference answer, then a record a gold write was done to described by up to five of its
    labels, dates and amounts: one no other write names (not the user's own account), a created
    record's first (the flight an award ticket was booked on)."""
    writes = [c for c in task.gold_actions if env.tools[c.tool].kind == "write"]
    named = [[v for k, v in c.arguments.items() if k.endswith("_id") and isinstance(v, str)] for c in writes]
    counts = {i: sum(i in ids for ids in named) for ids in named for i in ids}
    ranked = sorted(
        (
            (not c.tool.startswith("create"), -n, i)
            for n, (c, ids) in enumerate(zip(writes, named, strict=True))
            for i in ids
        ),
    )
    ids = [i for _, _, i in ranked if counts[i] == 1 or len(writes) == 1]
    if not ids or not task.answer:
        return None
    records = [r for result in results for r in flatten(result) if r and str(r[0][1]) == ids[0]]
    if not records:
        return None
    record = max(reversed(records), key=len)  # the latest of the fullest: as the write left it
    keys = [k for k, _ in record]
    values = [
        f"{v:g}" if isinstance(v, float) else str(v)
        for k, v in record[1:]
        if not k.endswith("_id")
        and keys.count(k) == 1  # a list of children's ids is no field of the record's own
        and not _ID.fullmatch(str(v))
        and isinstance(v, int | float | str)
        and not isinstance(v, bool)
        and not any(_same(v, out) for out in task.outputs)
    ]
    # a description, not every field (the answer says the asked one): that is the record read out
    values = values[: min(5, len(values) - 1)]
    if len(values) < 3:
        return None
    noun = record[0][0].removesuffix("_id").replace("_", " ")
    return f"{task.answer} That was on the {noun} {', '.join(values[:-1])} and {values[-1]}."


def _tool_message(env: Environment, task: Task) -> str | None:
    """Each refused request relayed with the error its tool gives after the gold calls, where every
    refused call is one its tool stops (an enforced refusal) and nothing else is asked."""
    if task.outputs or not all(r.call is not None for r in task.refusals):
        return None  # a value asked besides is answered by the other forms
    episode = env.episode(task)
    try:
        episode.replay(task.gold_actions)
        said = []
        for refusal in task.refusals:
            assert refusal.call is not None
            try:
                episode.call_tool(refusal.call.tool, refusal.call.arguments)
            except ToolError as exc:
                said.append(f"I tried, but the system would not let me {refusal.request}: {exc}")
            else:
                return None  # the tool let it through: the refusal is the agent's, not the tool's
        return " ".join(said)
    finally:
        episode.close()
