"""Inline SVG bar charts for the audit report, drawn from the data (no script, no assets)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from bot import messages
from bot.audit.report_data import Tally

MAX_BARS = 40  # groups drawn per chart; the caption says how many were left out
BAR, GAP, HEIGHT = 14, 10, 180
COLOURS = ("#2b6cb0", "#dd6b20")  # changes, decisions


def grouped_bars(title: str, tallies: Sequence[Tally]) -> str:
    """Two bars per label (changes, decisions), values written above them."""
    shown = list(tallies[:MAX_BARS])
    top = max([1, *(max(t.changes, t.decisions) for t in shown)])
    group = 2 * BAR + GAP
    width = max(340, 40 + group * len(shown))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart" width="{width}" '
        f'height="{HEIGHT + 90}" viewBox="0 0 {width} {HEIGHT + 90}">',
        f"<title>{escape(title)}</title>",
        f'<line x1="30" y1="{HEIGHT + 20}" x2="{width - 5}" y2="{HEIGHT + 20}" stroke="#555"/>',
    ]
    for index, tally in enumerate(shown):
        x = 34 + index * group
        values = zip((tally.changes, tally.decisions), COLOURS, strict=True)
        for offset, (value, colour) in enumerate(values):
            parts.append(_bar(x + offset * BAR, value, top, colour))
        parts.append(
            f'<text class="label" x="{x + BAR}" y="{HEIGHT + 32}" font-size="10" '
            f'transform="rotate(40 {x + BAR} {HEIGHT + 32})">{escape(tally.label[:24])}</text>'
        )
    parts.append(_legend(width))
    parts.append("</svg>")
    more = len(tallies) - len(shown)
    caption = escape(title + (messages.REPORT_NOT_DRAWN.format(count=more) if more > 0 else ""))
    return f"<figure>{''.join(parts)}<figcaption>{caption}</figcaption></figure>"


def _bar(x: int, value: int, top: int, colour: str) -> str:
    height = round(HEIGHT * value / top)
    y = HEIGHT + 20 - height
    return (
        f'<rect x="{x}" y="{y}" width="{BAR - 2}" height="{height}" fill="{colour}">'
        f"<title>{value}</title></rect>"
        f'<text x="{x + (BAR - 2) / 2}" y="{y - 3}" font-size="9" text-anchor="middle">'
        f"{value}</text>"
    )


def _legend(width: int) -> str:
    items = []
    for index, (name, colour) in enumerate(zip(("changes", "decisions"), COLOURS, strict=True)):
        x = width - 170 + index * 85
        items.append(
            f'<rect x="{x}" y="4" width="10" height="10" fill="{colour}"/>'
            f'<text x="{x + 14}" y="13" font-size="11">{name}</text>'
        )
    return "".join(items)
