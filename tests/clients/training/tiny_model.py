"""A tiny Qwen3-shaped model and tokenizer built in memory (no weights downloaded), and a scripted policy.

The tokenizer is byte-level with no merges (any text round-trips) plus Qwen's chat tokens, and carries
the Qwen3 chat template TRL knows (so TRL parses tool calls in its responses). ``ScriptedModel`` is the
randomly initialised model whose ``generate`` writes what a script says instead of sampling: GRPO then
runs for real (tool calls, rewards, the loss and an optimizer step) with a policy the test controls.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM
from trl.chat_template_utils import qwen3_chat_template

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
MARKUP = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    core = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.add_special_tokens({"additional_special_tokens": SPECIAL})
    tokenizer.add_tokens(MARKUP)
    tokenizer.chat_template = qwen3_chat_template
    return tokenizer


class ScriptedModel(Qwen3ForCausalLM):
    """A random tiny Qwen3 whose ``generate`` appends ``script(prompt text)`` to each prompt."""

    script: Callable[[str], str]
    tokenizer: PreTrainedTokenizerFast

    @torch.no_grad()
    def generate(self, input_ids=None, attention_mask=None, **kwargs):  # type: ignore[override]
        replies = []
        for ids, mask in zip(input_ids, attention_mask, strict=True):
            prompt = self.tokenizer.decode(ids[mask.bool()].tolist(), skip_special_tokens=False)
            replies.append(self.tokenizer.encode(self.script(prompt), add_special_tokens=False))
        width = max(len(r) for r in replies)
        pad = self.tokenizer.pad_token_id
        tail = torch.tensor([r + [pad] * (width - len(r)) for r in replies], dtype=input_ids.dtype)
        return torch.cat([input_ids, tail.to(input_ids.device)], dim=1)


def scripted_model(tokenizer: PreTrainedTokenizerFast, script: Callable[[str], str]) -> ScriptedModel:
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=8,
        max_position_embeddings=32768,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    model = ScriptedModel(config)
    model.script, model.tokenizer = script, tokenizer
    return model


Plans = dict[str, tuple[list[tuple[str, dict]], str]]


def plan_script(plans: Plans) -> Callable[[str], str]:
    """Each turn in Qwen3's format: the plan's next call (a ``<tool_call>``), then its answer."""

    def script(prompt: str) -> str:
        calls, answer = next(plan for instruction, plan in plans.items() if instruction in prompt)
        made = prompt.count("<tool_response>")
        if made < len(calls):
            name, arguments = calls[made]
            return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call><|im_end|>"
        return f"{answer}<|im_end|>"

    return script
