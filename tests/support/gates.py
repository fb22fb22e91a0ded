"""A gate message shaped as the presenter shapes one — a title, a code block and Approve / Modify /
Cancel carrying the button value — for the adapter tests of every platform."""

from __future__ import annotations

from adapters.chat import Button, CodeBlock, Message


def gate_message(text: str, block: CodeBlock, value: str, key: str = "") -> Message:
    buttons = (
        Button("Approve", "approve", "primary", value),
        Button("Modify", "modify", "default", value),
        Button("Cancel", "cancel", "danger", value),
    )
    return Message(text, blocks=(block,), buttons=buttons, key=key)
