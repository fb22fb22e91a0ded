"""A chat completion as the `chat.completion.chunk` server-sent events a streaming server sends.

The shape is OpenAI's streaming format, which Ollama, vLLM and llama.cpp follow: a first delta
with the role, then content (and `reasoning_content`) in small pieces, tool calls as an id and
name followed by argument pieces (an object is sent whole, in one event), a last chunk with
`finish_reason`, then — only when the client asked with `stream_options: {"include_usage":
true}` and the server reports usage — one chunk with empty `choices` and the `usage`, and
`data: [DONE]`. A word longer than 1,000 characters comes in pieces of that size, as
a server streams tokens. `role_every_chunk`: Ollama's shape, `"role": "assistant"` in every delta
(ollama/ollama#7626).
"""

from __future__ import annotations

import json
import re
from typing import Any

DONE = b"data: [DONE]\n\n"
_PIECE = re.compile(r"(?:\S{1,1000}\s*){1,3}|\s+")  # about three words a chunk


def event(chunk: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def pieces(text: str) -> list[str]:
    return _PIECE.findall(text) or [text]


def chunks(
    completion: dict[str, Any], *, usage: bool, role_every_chunk: bool = False
) -> list[dict[str, Any]]:
    """The streamed form of a non-streamed `completion` body."""
    [choice] = completion["choices"]
    message = choice["message"]
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"reasoning_content": p} for p in pieces(message.get("reasoning_content") or "")]
    deltas += [{"content": p} for p in pieces(message.get("content") or "") if p]
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        arguments = function["arguments"]
        head = {"index": index, "id": call["id"], "type": "function"}
        deltas.append({"tool_calls": [{**head, "function": {"name": function["name"]}}]})
        parts = pieces(arguments) if isinstance(arguments, str) else [arguments]  # an object whole
        deltas += [{"tool_calls": [{"index": index, "function": {"arguments": p}}]} for p in parts]
    common = {key: completion[key] for key in ("id", "created", "model")}
    common["object"] = "chat.completion.chunk"
    out = [
        {**common, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        for delta in deltas
        if delta.get("reasoning_content") != ""
    ]
    out.append(
        {**common, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}
    )
    if role_every_chunk:
        for chunk in out:
            chunk["choices"][0]["delta"]["role"] = "assistant"
    if usage and "usage" in completion:
        out.append({**common, "choices": [], "usage": completion["usage"]})
    return out
