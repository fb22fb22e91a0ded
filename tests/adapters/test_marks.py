"""The presenter's inline marks, found once for every adapter that renders them."""

from __future__ import annotations

import pytest

from adapters.marks import Span, spans

FOOTNOTE = "\n_expires 10:00, content sha256 ab_"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain words", [Span("plain words")]),
        ("*Step 1 of 2* for chg-1", [Span("Step 1 of 2", ("bold",)), Span(" for chg-1")]),
        (FOOTNOTE, [Span("\n"), Span("expires 10:00, content sha256 ab", ("italic",))]),
        ("type `cancel` first", [Span("type "), Span("cancel", ("code",)), Span(" first")]),
        ("*bold `code`*", [Span("bold ", ("bold",)), Span("code", ("bold", "code"))]),
        ("`*kept*`", [Span("*kept*", ("code",))]),
        ("CHANGE_ID and snake_case_name", [Span("CHANGE_ID and snake_case_name")]),
    ],
)
def test_marks_become_spans_without_their_characters(text: str, expected: list[Span]) -> None:
    assert spans(text) == expected
