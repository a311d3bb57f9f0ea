"""One LLM API request with retries; SDK errors that remain become ``LLMAPIError``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anthropic
import openai

from ..errors import LLMAPIError
from ..retry import RetryPolicy, status_of, with_retries

T = TypeVar("T")


async def call_api(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    what: str,
) -> T:
    """Await ``fn()`` with retries; an SDK error left after them becomes a one-line ``LLMAPIError``."""
    try:
        return await with_retries(fn, policy)
    except (openai.OpenAIError, anthropic.AnthropicError) as exc:
        text = " ".join(str(exc).split())[:300]
        raise LLMAPIError(f"{what}: {type(exc).__name__}: {text}", status=status_of(exc)) from exc
