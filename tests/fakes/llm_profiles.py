"""How real OpenAI-compatible servers answer structured-output requests, one profile each.

Each profile reproduces the documented behaviour the planner must cope with; the sources:
- OpenAI: tool calls with `arguments` as a JSON string, `usage` always, `stream_options`.
- Ollama (`/v1`, docs/openai.md): tools and `response_format` json_schema (v0.5+) honoured, but a
  forced `tool_choice` is ignored (ollama/ollama#8421, #17921): the model may answer in text.
  A model without tool support answers 400 "… does not support tools".
- vLLM (docs.vllm.ai features/tool_calling): named function calling works without a parser
  (guided decoding); `tool_choice: "auto"` without `--enable-auto-tool-choice
  --tool-call-parser` is refused with HTTP 400.
- llama.cpp `llama-server`: `response_format` json_schema is grammar-constrained; without
  `--jinja` a request with `tools` fails "500 tools param requires --jinja flag"
  (containers/ramalama#988); with it, some builds send tool `arguments` as a JSON object
  (ggml-org/llama.cpp#20198, #20202).
- Reasoning models: DeepSeek's deepseek-reasoner (api-docs.deepseek.com guides/reasoning_model)
  puts its chain of thought in `reasoning_content` beside `content`, supports JSON output but
  not function calling; deepseek-r1 served by Ollama writes `<think>…</think>` into `content`.
  DeepSeek-R1 distills whose chat template pre-fills `<think>\n` write only the thinking and
  `</think>`, then the answer: vLLM without `--reasoning-parser` (vllm-project/vllm#13125) and
  llama.cpp (ggml-org/llama.cpp#11861). Every thinking here drafts `{"name": "ospf"}`, a
  built-in template's name, which must never be taken for the answer.
- Ollama's streamed chunks repeat `"role": "assistant"` in every delta (ollama/ollama#7626;
  OpenAI sends it in the first only); the OpenAI client's stream helper, which ChatOpenAI uses
  with `response_format`, concatenates the repeats.
- A server without `usage` (several proxies and small servers omit it, streaming or not), and
  one that ignores `"stream": true` and answers with one JSON body (no server documents this;
  it is the fallback the planner needs if one does).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

THINKING = (
    'The request is about OSPF. A first idea was the built-in {"name": "ospf"} but the '
    "request wants its own template, so I will answer with the full object."
)


@dataclass(frozen=True)
class ServerProfile:
    """What one server does with tools, response formats, reasoning and usage."""

    name: str
    tools: Literal["yes", "named_only", "refused"] = "yes"
    tools_refusal: tuple[int, str] = (400, "")
    json_schema: bool = True  # response_format {"type": "json_schema"} honoured
    json_schema_refusal: str = "This response_format type is unavailable now"
    arguments_as_object: bool = False
    thinking: Literal["", "content", "prefilled", "reasoning_content"] = ""
    usage: bool = True
    prose_around_text_json: bool = False  # JSON asked for in words comes fenced, with prose
    streams: bool = True  # False: `"stream": true` is ignored, the answer comes as one JSON body
    role_every_chunk: bool = False  # Ollama: `"role": "assistant"` in every streamed delta
    extra_body: dict[str, Any] = field(default_factory=dict)  # the server's own fields
    extra_choice: dict[str, Any] = field(default_factory=dict)

    def refusal(self, body: dict[str, Any]) -> tuple[int, str] | None:
        """The HTTP error this server answers the request with, if any."""
        if body.get("tools"):
            if self.tools == "refused":
                return self.tools_refusal
            if self.tools == "named_only" and not isinstance(body.get("tool_choice"), dict):
                return (
                    400,
                    '"auto" tool choice requires --enable-auto-tool-choice and '
                    "--tool-call-parser to be set",
                )
        response_format = body.get("response_format") or {}
        if response_format.get("type") == "json_schema" and not self.json_schema:
            return 400, self.json_schema_refusal
        return None

    def structured_message(
        self, obj: dict[str, Any], body: dict[str, Any], in_text: bool
    ) -> dict[str, Any]:
        """The assistant message carrying `obj` the way this server sends it. `in_text`: the
        model ignored the offered tool and wrote the JSON in its text (Ollama)."""
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if self.thinking == "reasoning_content":
            message["reasoning_content"] = THINKING
        think = {
            "content": f"<think>\n{THINKING}\n</think>\n\n",
            "prefilled": f"{THINKING}\n</think>\n\n",
        }.get(self.thinking, "")
        tools = body.get("tools") or []
        if tools and not in_text:
            arguments: Any = obj if self.arguments_as_object else json.dumps(obj)
            message["tool_calls"] = [
                {
                    "id": "call_standin_1",
                    "type": "function",
                    "function": {"name": tool_name(body, tools), "arguments": arguments},
                }
            ]
            message["content"] = think or None
            return message
        asked_format = bool(body.get("response_format"))
        if (in_text or not asked_format) and self.prose_around_text_json:
            text = f"```json\n{json.dumps(obj, indent=1)}\n```\nThis answers the request."
        else:
            text = json.dumps(obj)
        message["content"] = think + text
        return message


def tool_name(body: dict[str, Any], tools: list[dict[str, Any]]) -> str:
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and "function" in choice:
        return str(choice["function"]["name"])
    return str(tools[0]["function"]["name"])


OPENAI = ServerProfile("openai")
OLLAMA_FIELDS = {"system_fingerprint": "fp_ollama"}
VLLM_FIELDS = {"prompt_logprobs": None, "kv_transfer_params": None}
VLLM_CHOICE = {"stop_reason": None}
LLAMA_CPP_FIELDS = {
    "system_fingerprint": "b5000-abcdef12",
    "timings": {"prompt_n": 1, "prompt_ms": 1.0, "predicted_n": 1, "predicted_ms": 1.0},
}
OLLAMA = ServerProfile(
    "ollama", prose_around_text_json=True, role_every_chunk=True, extra_body=OLLAMA_FIELDS
)
VLLM_TOOL_PARSER = ServerProfile(
    "vllm --tool-call-parser hermes", extra_body=VLLM_FIELDS, extra_choice=VLLM_CHOICE
)
VLLM_NO_TOOL_PARSER = ServerProfile(
    "vllm (no tool parser)", tools="named_only", extra_body=VLLM_FIELDS, extra_choice=VLLM_CHOICE
)
LLAMA_CPP = ServerProfile(
    "llama-server (no --jinja)",
    tools="refused",
    tools_refusal=(500, "tools param requires --jinja flag"),
    extra_body=LLAMA_CPP_FIELDS,
)
LLAMA_CPP_JINJA = ServerProfile(
    "llama-server --jinja (arguments as object)",
    arguments_as_object=True,
    extra_body=LLAMA_CPP_FIELDS,
)
OLLAMA_THINK = ServerProfile(
    "ollama deepseek-r1 (<think> in content)",
    tools="refused",
    tools_refusal=(400, "registry.ollama.ai/library/deepseek-r1:8b does not support tools"),
    thinking="content",
    prose_around_text_json=True,
    role_every_chunk=True,
    extra_body=OLLAMA_FIELDS,
)
VLLM_R1_PREFILLED = ServerProfile(
    "vllm DeepSeek-R1-Distill (pre-filled <think>, no parsers)",
    tools="named_only",
    thinking="prefilled",
    extra_body=VLLM_FIELDS,
    extra_choice=VLLM_CHOICE,
)
LLAMA_CPP_R1_PREFILLED = ServerProfile(
    "llama-server DeepSeek-R1-Distill (pre-filled <think>, no --jinja)",
    tools="refused",
    tools_refusal=(500, "tools param requires --jinja flag"),
    thinking="prefilled",
    prose_around_text_json=True,
    extra_body=LLAMA_CPP_FIELDS,
)
DEEPSEEK_REASONER = ServerProfile(
    "deepseek-reasoner (reasoning_content)",
    tools="refused",
    tools_refusal=(400, "deepseek-reasoner does not support Function Calling"),
    json_schema=False,
    thinking="reasoning_content",
    prose_around_text_json=True,
)
NO_USAGE = ServerProfile("a server without usage", usage=False)
NO_STREAMING = ServerProfile("a server that ignores stream", streams=False)

PROFILES = (
    OPENAI,
    OLLAMA,
    VLLM_TOOL_PARSER,
    VLLM_NO_TOOL_PARSER,
    LLAMA_CPP,
    LLAMA_CPP_JINJA,
    OLLAMA_THINK,
    VLLM_R1_PREFILLED,
    LLAMA_CPP_R1_PREFILLED,
    DEEPSEEK_REASONER,
    NO_USAGE,
    NO_STREAMING,
)
