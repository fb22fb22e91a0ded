"""Reading a structured answer out of what a model sent, however the server shaped it.

Tolerated, as real OpenAI-compatible servers send them: `<think>…</think>` before the answer
(reasoning models served by Ollama or vLLM without a reasoning parser; `reasoning_content`
never reaches here: ChatOpenAI leaves it out), thinking that ends in `</think>` with no opening
tag (DeepSeek-R1 distills whose chat template pre-fills `<think>`: vLLM without a reasoning
parser, vllm-project/vllm#13125; llama.cpp, ggml-org/llama.cpp#11861), JSON in a ```json fence
or bare with prose after it. Nothing inside the thinking is ever read as the answer. Tool-call
arguments sent as a JSON object are mended before this (workflow/llm/wire.py).

Token usage comes from the endpoint's `usage` when it sent one; without it, it is estimated
from the characters sent and received (about four a token, OpenAI's rule of thumb for English
text and JSON) and marked `estimated`, so nobody mistakes it for a measurement.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from workflow.model import TokenUsage

__all__ = ["json_in_text", "strip_thinking"]

CHARS_PER_TOKEN = 4
_THOUGHT = re.compile(r"^.*</think>", re.DOTALL)  # up to the last closing tag, opened or not
_UNCLOSED = re.compile(r"<think>.*$", re.DOTALL)  # still thinking when the answer ended
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)


def strip_thinking(text: str) -> str:
    """The text after its thinking: everything up to the last `</think>` (with or without its
    `<think>`) goes, and so does an unclosed `<think>` to the end."""
    return _UNCLOSED.sub("", _THOUGHT.sub("", text, count=1)).strip()


def json_in_text(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text`: a fenced one first, else the first `{` that starts a
    whole object (whatever prose follows it). None when there is none."""
    text = strip_thinking(text)
    decoder = json.JSONDecoder()
    candidates = [m.group(1).strip() for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        start = candidate.find("{")
        while start != -1:
            try:
                found, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                start = candidate.find("{", start + 1)
                continue
            if isinstance(found, dict):
                return found
            start = candidate.find("{", start + 1)
    return None


def answer_object(message: AIMessage) -> dict[str, Any] | None:
    """The answer as an object: the first tool call's arguments (JSON, or JSON among other
    text), else JSON in the text. None when the model sent neither."""
    for call in message.tool_calls:
        return dict(call["args"])
    for invalid in message.invalid_tool_calls:  # arguments that are not plain JSON
        if (found := json_in_text(invalid.get("args") or "")) is not None:
            return found
    return json_in_text(message.text)


def answer_text(message: AIMessage) -> str:
    """What the model answered, as text (to show it its own answer when asking again)."""
    for call in message.tool_calls:
        return json.dumps(call["args"])
    for invalid in message.invalid_tool_calls:
        return invalid.get("args") or ""
    return strip_thinking(message.text)


def estimate_tokens(text: str) -> int:
    return tokens_of_chars(len(text))


def tokens_of_chars(chars: int) -> int:
    """About how many tokens `chars` characters of model output are."""
    return math.ceil(chars / CHARS_PER_TOKEN)


def usage_of(message: AIMessage, sent: Iterable[BaseMessage], extra: str = "") -> TokenUsage:
    """The endpoint's usage of one call, or an estimate from the text (`estimated: True`).
    `extra`: what else the request carried (tool or response schemas)."""
    meta = message.usage_metadata
    if meta and meta.get("total_tokens"):
        return TokenUsage(
            input_tokens=int(meta["input_tokens"]),
            output_tokens=int(meta["output_tokens"]),
            total_tokens=int(meta["total_tokens"]),
        )
    prompt = "".join(m.text for m in sent) + extra
    output = message.text + "".join(json.dumps(c["args"]) for c in message.tool_calls)
    input_tokens, output_tokens = estimate_tokens(prompt), estimate_tokens(output)
    return TokenUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        estimated=True,
    )
