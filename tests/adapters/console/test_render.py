"""The console shows the presenter's marks as terminal styles, never as Slack markup."""

from __future__ import annotations

import io

from rich.console import Console

from adapters.chat import Button, Message
from adapters.console.render import render_message, styled

GATE = Message(
    "*Step 1 of 2 — template* for change chg-1: OSPF\n_expires 10:00, content sha256 ab12_",
    buttons=(Button("Approve", "approve", "primary", "int-1|" + "a" * 64),),
    footer="✅ Approved by *bob* at 10:01",
)


def shown(message: Message, *, color: bool) -> str:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=color, no_color=not color)
    console.print(render_message(message))
    return out.getvalue()


def test_a_gate_reads_without_markup_characters() -> None:
    plain = shown(GATE, color=False)
    assert "Step 1 of 2 — template for change chg-1" in plain
    assert "expires 10:00, content sha256 ab12" in plain
    assert "*Step" not in plain and "_expires" not in plain and "*bob*" not in plain


def test_bold_and_italics_are_terminal_styles() -> None:
    styled_out = shown(GATE, color=True)
    assert "\x1b[1mStep 1 of 2 — template\x1b[0m" in styled_out  # bold
    assert "\x1b[3mexpires 10:00, content sha256 ab12\x1b[0m" in styled_out  # italics


def test_typed_text_is_never_read_as_rich_markup() -> None:
    text = styled("apply [red]banner[/red] to R1 with `[bold]`")
    assert text.plain == "apply [red]banner[/red] to R1 with [bold]"
    assert [(text.plain[s.start : s.end], s.style) for s in text.spans] == [("[bold]", "bold cyan")]
