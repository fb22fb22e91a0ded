"""The diagnosis loop's turns for servers without tool calling (vLLM without a tool parser,
llama.cpp without `--jinja`, deepseek-r1 on Ollama): the model writes one JSON object a turn in
its text, `{"read": {"device": …, "command": …}}` or `{"answer": "…"}`, and is given each read's
output as the next message. Thinking, fences and prose around the object are tolerated as in
planning answers (workflow/llm/answers.py); a reply with no object at all is its answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from workflow.llm.answers import json_in_text, strip_thinking

EXAMPLE_READ = {"read": {"device": "R1", "command": "show ip route"}}
PROTOCOL = (
    "You cannot call tools. Reply with exactly one JSON object each turn: "
    f"{json.dumps(EXAMPLE_READ)} to read (you then get its output), or "
    '{"answer": "<your diagnosis>"} when you know enough.'
)
UNREADABLE = (
    'That reply is neither {"read": {"device": …, "command": …}} nor {"answer": "…"}; '
    "reply with exactly one of them."
)


@dataclass(frozen=True)
class Turn:
    """What one reply asks: a read (its arguments), the answer, or neither (told again)."""

    reads: list[dict[str, object]] = field(default_factory=list)
    answer: str | None = None


def read_turn(text: str) -> Turn:
    """The turn `text` (the model's whole reply) asks for."""
    found = json_in_text(text)
    if found is None:
        return Turn(answer=strip_thinking(text))
    if isinstance(found.get("answer"), str):
        return Turn(answer=found["answer"])
    read = found.get("read")
    if isinstance(read, dict):
        return Turn(reads=[read])
    return Turn()


def output_text(args: dict[str, object], result: str) -> str:
    """A read's output (or why it was refused) as the next message to the model."""
    return f"Read {args.get('device')!s}: {args.get('command')!s}\n{result}"
