"""Reading JSON out of what models write: think blocks, fences, prose, decoys."""

from __future__ import annotations

from typing import Any

import pytest

from workflow.llm.answers import json_in_text, strip_thinking
from workflow.llm.wire import mend

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
        ("I cannot help with that.", None),
    ],
)
def test_the_answer_is_the_first_whole_object_outside_thinking(
    text: str, expected: dict[str, Any] | None
) -> None:
    assert json_in_text(text) == expected


def test_thinking_is_removed_before_the_answer() -> None:
    assert strip_thinking("<think>\na\n</think>\n\nanswer") == "answer"


def test_object_arguments_become_json_text_in_answers_and_stream_chunks() -> None:
    call = {"function": {"name": "T", "arguments": {"a": 1}}}
    answer = {"choices": [{"message": {"tool_calls": [call]}}]}
    chunk = {"choices": [{"delta": {"tool_calls": [{"function": {"arguments": [1]}}]}}]}
    assert mend(answer) and call["function"]["arguments"] == '{"a": 1}'
    assert mend(chunk) and chunk["choices"][0]["delta"]["tool_calls"][0]["function"] == {
        "arguments": "[1]"
    }
    assert not mend(answer) and not mend({"choices": []}) and not mend([])
