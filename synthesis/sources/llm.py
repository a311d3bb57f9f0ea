"""The LLM backend: an OpenAI-compatible chat model writes a :class:`~synthesis.domains.domain.Domain` for a topic.

The prompt holds the Domain JSON Schema, the format notes of :mod:`synthesis.domains.domain`, a worked example
(``ontology/education.json``) and the mined topic. The answer must be one JSON object; it is accepted
only when it parses, validates as a Domain, generates an environment (:func:`generate_env`) and that
environment passes :func:`envs.check_env`. Any failure is sent back to the model as a new user message
(the repair loop), at most ``retries`` times. API errors are retried with exponential backoff; a server
that rejects ``response_format`` is asked again without it. Every request is recorded as an
:class:`LLMAttempt`; when the budget runs out the result is a recorded rejection, never an exception.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

import openai
from openai.types.chat import ChatCompletionMessageParam
from pydantic import ValidationError

from envs import check_env
from envs.errors import EnvFarmError

from ..domains import domain as domain_module
from ..domains.domain import Domain
from ..domains.ontology import ONTOLOGY_DIR
from ..domains.sqlgen import DomainError
from ..tools.envgen import generate_env
from .mining import Topic

__all__ = [
    "ClientConfig",
    "DomainResult",
    "ErrorKind",
    "LLMAttempt",
    "LLMError",
    "domains_from_topics",
    "evaluate_answer",
    "synthesize_domain",
    "worked_example",
    "write_task_texts",
]

log = logging.getLogger(__name__)

ErrorKind = Literal["invalid_json", "schema", "generation", "check", "api"]
TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.DOTALL)
_MAX_LISTED = 10


class LLMError(EnvFarmError):
    """The LLM backend could not be used (no API key, or the API kept failing)."""


@dataclass(frozen=True)
class ClientConfig:
    """How to reach the model and how hard to try.

    Attributes:
        base_url: the OpenAI-compatible API, e.g. ``https://api.openai.com/v1``.
        model: the model name.
        api_key_env: the environment variable holding the API key; ``None`` for a server without keys.
        retries: repair rounds after the first answer (so at most ``retries + 1`` answers are judged).
        api_retries: retries of one request after a transient API error (429, 5xx, connection).
        backoff: seconds before the first API retry; doubled each time, at most 30 s.
        sdk_max_retries: the SDK's own retries; 0 so every retry happens (and is counted) here.
        timeout: seconds per request.
        temperature: sampling temperature, or ``None`` for the server's default.
        json_mode: ask for ``response_format={"type": "json_object"}`` (dropped if the server rejects it).
        seed: the seed of the trial environment generated to check an answer.
    """

    base_url: str
    model: str
    api_key_env: str | None = "OPENAI_API_KEY"
    retries: int = 3
    api_retries: int = 3
    backoff: float = 1.0
    sdk_max_retries: int = 0
    timeout: float = 120.0
    temperature: float | None = 0.2
    json_mode: bool = True
    seed: int = 0


@dataclass(frozen=True)
class LLMAttempt:
    """One request to the model and its outcome.

    Attributes:
        number: the request's position, from 1 (requests that failed at the API count too).
        error: what went wrong, or ``None`` for the accepted answer.
        message: the error, as fed back to the model (empty when accepted).
    """

    number: int
    error: ErrorKind | None
    message: str = ""

    @property
    def ok(self) -> bool:
        """Whether this attempt produced the accepted domain."""
        return self.error is None


@dataclass
class DomainResult:
    """What the backend made of one topic: a domain, or a recorded rejection."""

    topic: Topic
    domain: Domain | None
    attempts: list[LLMAttempt] = field(default_factory=list)
    rejected_reason: str | None = None

    @property
    def accepted(self) -> bool:
        """Whether a domain was accepted."""
        return self.domain is not None

    @property
    def api_errors(self) -> int:
        """How many requests failed at the API."""
        return sum(a.error == "api" for a in self.attempts)


@lru_cache(maxsize=1)
def worked_example() -> str:
    """The worked example of the prompt: the first domain of ``ontology/education.json``, as JSON."""
    data = json.loads((ONTOLOGY_DIR / "education.json").read_text(encoding="utf-8"))
    return json.dumps(data["domains"][0], separators=(",", ":"), ensure_ascii=False)


@lru_cache(maxsize=1)
def _schema() -> str:
    return json.dumps(Domain.model_json_schema(), separators=(",", ":"))


def _system_prompt() -> str:
    return (
        "You design domains for envfarm: simulated business environments in which an AI agent helps a user "
        "through tools. A domain lists entities (tables) with typed attributes, references between them, and "
        "lifecycles whose transitions (with guards and effects) become the agent's write tools.\n\n"
        "Format notes:\n" + (domain_module.__doc__ or "") + "\n"
        "Answer with exactly one JSON object that validates against the Domain JSON Schema you are given. "
        "No prose, no Markdown."
    )


def _topic_prompt(topic: Topic, example: str) -> str:
    asks = "\n".join(f"- {line}" for line in topic.examples[:20])
    return (
        f"The Domain JSON Schema:\n{_schema()}\n\n"
        f"A worked example of a valid domain:\n{example}\n\n"
        f"Write a new domain for this topic.\nTopic: {topic.name}\nSector: {topic.sector}\n"
        f"Keywords: {', '.join(topic.keywords)}\nWhat users ask about:\n{asks}\n\n"
        "Requirements: a snake_case id; 3 to 6 entities, one of them the user_entity with a unique lookup "
        "attribute (such as an email); every reference names an existing entity and references form no "
        "cycle; at least 4 lifecycle transitions with meaningful guards and effects written with the value "
        "sources from the format notes. Reply with the JSON object only."
    )


def _feedback(kind: ErrorKind, message: str) -> str:
    return (
        f"Your answer was rejected ({kind}): {message}\n\n"
        "Fix every problem and reply with the complete corrected Domain JSON object only."
    )


def _listed(items: Sequence[str]) -> str:
    more = f"\n(and {len(items) - _MAX_LISTED} more)" if len(items) > _MAX_LISTED else ""
    return "\n".join(f"- {i}" for i in items[:_MAX_LISTED]) + more


def evaluate_answer(content: str, *, seed: int = 0) -> tuple[Domain | None, ErrorKind | None, str]:
    """Judge one answer: parse, validate, generate the environment and check it.

    Args:
        content: the model's answer (a Markdown code fence around the JSON is tolerated).
        seed: the seed of the trial environment.

    Returns:
        ``(domain, None, "")`` when accepted, else ``(None, kind, message)``.
    """
    fenced = _FENCE.match(content)
    text = fenced.group(1) if fenced else content
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, "invalid_json", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(data, dict) and len(data) == 1 and isinstance(data.get("domain"), dict):
        data = data["domain"]
    if not isinstance(data, dict):
        return None, "invalid_json", f"expected one JSON object, got {type(data).__name__}"
    try:
        domain = Domain.model_validate(data)
    except ValidationError as exc:
        errors = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()]
        return None, "schema", f"{len(errors)} validation error(s):\n{_listed(errors)}"
    try:
        generated = generate_env(domain, seed=seed)
    except DomainError as exc:
        return None, "generation", str(exc)
    except ValidationError as exc:
        errors = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        return None, "generation", f"the generated environment spec is invalid:\n{_listed(errors)}"
    except Exception as exc:  # the generator must not crash the loop on a strange but valid domain
        return None, "generation", f"{type(exc).__name__}: {exc}"
    report = check_env(generated.spec)
    if not report.ok:
        return (
            None,
            "check",
            f"the generated environment fails its checks:\n{_listed([str(p) for p in report.problems])}",
        )
    return domain, None, ""


def _api_key(config: ClientConfig) -> str:
    if not config.api_key_env:
        return "unused"
    key = os.environ.get(config.api_key_env)
    if not key:
        raise LLMError(f"the API key variable {config.api_key_env} is not set")
    return key


def _client(config: ClientConfig) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=config.base_url,
        api_key=_api_key(config),
        max_retries=config.sdk_max_retries,
        timeout=config.timeout,
    )


def _transient(exc: openai.APIError) -> bool:
    if isinstance(exc, openai.APIConnectionError):
        return True
    status = getattr(exc, "status_code", None)
    return status is None or status in TRANSIENT_STATUS


class _Session:
    """One conversation with the model: sends requests, retries API errors, records attempts."""

    def __init__(self, client: openai.OpenAI, config: ClientConfig) -> None:
        self.client = client
        self.config = config
        self.json_mode = config.json_mode
        self.attempts: list[LLMAttempt] = []

    def record(self, error: ErrorKind | None, message: str = "") -> None:
        self.attempts.append(LLMAttempt(len(self.attempts) + 1, error, message))

    def complete(self, messages: Sequence[ChatCompletionMessageParam]) -> tuple[str | None, str]:
        """The answer's text, or ``(None, reason)`` once API errors exhaust the retries."""
        failures = 0
        while True:
            extra: dict[str, Any] = {}
            if self.json_mode:
                extra["response_format"] = {"type": "json_object"}
            if self.config.temperature is not None:
                extra["temperature"] = self.config.temperature
            try:
                response = self.client.chat.completions.create(
                    model=self.config.model, messages=list(messages), **extra
                )
            except openai.APIError as exc:
                status = getattr(exc, "status_code", None)
                message = f"{type(exc).__name__}: {exc.message}"
                if self.json_mode and status in (400, 422):
                    self.json_mode = False
                    self.record("api", f"{message} (retrying without response_format)")
                    continue
                self.record("api", message)
                failures += 1
                if not _transient(exc) or failures > self.config.api_retries:
                    return None, f"api: {message} (after {failures} failed request(s))"
                time.sleep(min(self.config.backoff * 2 ** (failures - 1), 30.0))
                continue
            content = response.choices[0].message.content if response.choices else None
            return content or "", ""


def synthesize_domain(topic: Topic, client_config: ClientConfig, *, example: str | None = None) -> DomainResult:
    """Ask the model for a domain for ``topic`` and repair it until it passes, or give up.

    Args:
        topic: the mined topic.
        client_config: where the model is and how many retries are allowed.
        example: a worked example domain as JSON (default: :func:`worked_example`).

    Returns:
        The accepted domain with every attempt, or ``domain=None`` and the reason it was rejected.

    Raises:
        LLMError: the API key variable is not set (nothing was sent).
    """
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": _system_prompt()},
        {"role": "user", "content": _topic_prompt(topic, example or worked_example())},
    ]
    with _client(client_config) as client:
        session = _Session(client, client_config)
        reason = ""
        for _ in range(client_config.retries + 1):
            content, api_failure = session.complete(messages)
            if content is None:
                return DomainResult(topic, None, session.attempts, api_failure)
            domain, kind, message = evaluate_answer(content, seed=client_config.seed)
            if kind is None:
                session.record(None)
                return DomainResult(topic, domain, session.attempts)
            session.record(kind, message)
            reason = f"{kind}: {message}"
            messages.append({"role": "assistant", "content": content})
            messages.append({"role": "user", "content": _feedback(kind, message)})
    answers = client_config.retries + 1
    return DomainResult(topic, None, session.attempts, f"no valid domain after {answers} answer(s); last: {reason}")


def domains_from_topics(
    topics: Sequence[Topic],
    *,
    base_url: str,
    model: str,
    api_key_env: str | None = "OPENAI_API_KEY",
    retries: int = 3,
    taken: Collection[str] = (),
) -> list[Domain]:
    """The accepted domains for ``topics`` (``envfarm synthesize --domains FILE --llm-base-url ...``).

    Rejections are logged; a domain id already taken (by an earlier topic, or in ``taken``: the
    built-in domains chosen beside them) gets a ``_2``, ``_3``... suffix.

    Raises:
        LLMError: no topic gave an accepted domain, or the API key variable is not set.
    """
    config = ClientConfig(base_url=base_url, model=model, api_key_env=api_key_env, retries=retries)
    out: dict[str, Domain] = {}
    rejected: list[str] = []
    for topic in topics:
        result = synthesize_domain(topic, config)
        if result.domain is None:
            log.warning("topic %r rejected: %s", topic.name, result.rejected_reason)
            rejected.append(f"{topic.name}: {result.rejected_reason}")
            continue
        domain, k = result.domain, 2
        while domain.id in out or domain.id in taken:
            domain = result.domain.model_copy(update={"id": f"{result.domain.id}_{k}"[:40]})
            k += 1
        out[domain.id] = domain
    if topics and not out:
        raise LLMError("the LLM backend produced no valid domain:\n" + _listed(rejected))
    return list(out.values())


def write_task_texts(
    instruction: str,
    facts: Mapping[str, Any],
    client_config: ClientConfig,
    *,
    persona: str | None = None,
) -> str:
    """Ask the model to rephrase a task instruction as a user would say it, keeping every fact.

    The caller must re-verify the text (for instance, that every fact value still appears in it).

    Args:
        instruction: the template instruction.
        facts: the facts the text must state, e.g. ``{"email": "ann@example.com"}``.
        client_config: the model.
        persona: an optional description of the user speaking.

    Returns:
        The rephrased instruction, or ``instruction`` itself if the model answered with nothing.

    Raises:
        LLMError: the API kept failing, or the API key variable is not set.
    """
    prompt = (
        "Rewrite this customer request in natural first-person words, as the customer would type it. Keep "
        "its meaning and state every fact below with its value written exactly as given. Reply with the "
        f"request only.\n\nRequest: {instruction}\nFacts: {json.dumps(dict(facts), default=str)}"
        + (f"\nThe customer: {persona}" if persona else "")
    )
    config = dataclasses.replace(client_config, json_mode=False)
    with _client(config) as client:
        session = _Session(client, config)
        text, failure = session.complete([{"role": "user", "content": prompt}])
    if text is None:
        raise LLMError(f"could not rephrase the instruction: {failure}")
    return text.strip() or instruction
