"""Neutral `Home` → a Slack App Home view (views.publish). Pure."""

from __future__ import annotations

from typing import Any

from adapters.chat import Home
from adapters.slack.blocks import escape

MAX_LINES = 20  # per section; Slack allows 100 blocks in a home view
SECTION_CHARS = 2900  # under Slack's 3,000 per section text
MAX_BLOCKS = 100  # Slack refuses a home view of more
MORE_THAN_FITS = "_… and more than fits here: ask `pending` in a channel._"


def home_view(home: Home) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    for section in home.sections:
        blocks.append({"type": "header", "text": {"type": "plain_text", "text": section.title}})
        lines = [escape(line) for line in section.lines[:MAX_LINES]] or [f"_{section.empty}_"]
        if len(section.lines) > MAX_LINES:
            lines.append(f"… and {len(section.lines) - MAX_LINES} more")
        for line in lines:
            text = line[:SECTION_CHARS]
            blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": text}})
        blocks.append({"type": "divider"})
    if len(blocks) > MAX_BLOCKS:  # many labs' sections: what fits, and that there is more
        more = {"type": "mrkdwn", "text": MORE_THAN_FITS}
        blocks = [*blocks[: MAX_BLOCKS - 1], {"type": "context", "elements": [more]}]
    return {"type": "home", "blocks": blocks}
