"""Reading JSON out of what models write: think blocks, fences, prose, decoys."""

from __future__ import annotations

from typing import Any

import pytest

from workflow.llm.answers import json_in_text, strip_thinking
from workflow.llm.wire import drop_repeated_role, mend

ANSWER = {"name": "ospf", "targets": ["R1"]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"name": "ospf", "targets": ["R1"]}', ANSWER),
        ('```json\n{"name": "ospf", "targets": ["R1"]}\n```\nThis configures OSPF.', ANSWER),
        ('```\n{"name": "ospf", "targets": ["R1"]}\n```', ANSWER),
        ('Here it is: {"name": "ospf", "targets": ["R1"]} Hope this helps {smile}', ANSWER),
        ('<think>maybe {"name": "draft"}?</think>\n{"name": "ospf", "targets": ["R1"]}', ANSWER),
        ('["R1"] then {"name": "ospf", "targets": ["R1"]}', ANSWER),
        ('{"name": "ospf", "targets": ["R1"]', None),  # cut off
        ('<think>still thinking {"name": "draft"}', None),  # an unclosed think is no answer
        # a chat template that pre-fills `<think>`: the model writes only its closing tag
        ('maybe {"name": "draft"}?\n</think>\n\n{"name": "ospf", "targets": ["R1"]}', ANSWER),
        ('a draft {"name": "ospf", "targets": ["R1"]}\n</think>\n\nWhich process id?', None),
        ("I cannot help with that.", None),
    ],
)
def test_the_answer_is_the_first_whole_object_outside_thinking(
    text: str, expected: dict[str, Any] | None
) -> None:
    assert json_in_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "<think>\na\n</think>\n\nanswer",
        "a (pre-filled <think>)\n</think>\n\nanswer",
        "<think>a</think> <think>b</think>answer",
        "a</think>answer<think>cut off",
    ],
)
def test_thinking_is_removed_before_the_answer(text: str) -> None:
    assert strip_thinking(text) == "answer"


def test_object_arguments_become_json_text_in_answers_and_stream_chunks() -> None:
    call = {"function": {"name": "T", "arguments": {"a": 1}}}
    answer = {"choices": [{"message": {"tool_calls": [call]}}]}
    chunk = {"choices": [{"delta": {"tool_calls": [{"function": {"arguments": [1]}}]}}]}
    assert mend(answer) and call["function"]["arguments"] == '{"a": 1}'
    assert mend(chunk) and chunk["choices"][0]["delta"]["tool_calls"][0]["function"] == {
        "arguments": "[1]"
    }
    assert not mend(answer) and not mend({"choices": []}) and not mend([])


def test_a_role_repeated_in_later_stream_chunks_is_dropped_per_choice() -> None:
    """Ollama's chunks all carry `"role": "assistant"` (ollama/ollama#7626)."""
    roled: set[int] = set()
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "{"}}]},
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "}"}}]},
        {"choices": [{"index": 1, "delta": {"role": "assistant", "content": ""}}]},
        {"choices": [], "usage": {"total_tokens": 3}},
    ]
    dropped = [drop_repeated_role(chunk, roled) for chunk in chunks]
    assert dropped == [False, True, False, False]
    assert [c["choices"][0]["delta"] for c in chunks[:3]] == [
        {"role": "assistant", "content": "{"},
        {"content": "}"},
        {"role": "assistant", "content": ""},
    ]
