"""A Block Kit view as a simple HTML page (headers, mrkdwn sections, dividers), so a browser can
show what Slack would and a test can look at it. Only what labbot's views use."""

from __future__ import annotations

import re
from html import escape
from typing import Any

CSS = (
    "body{font:15px/1.5 -apple-system,system-ui,sans-serif;max-width:46em;margin:1.5em auto;"
    "color:#1d1c1d}h2{font-size:1.2em;margin:1.2em 0 .3em}p{margin:.25em 0}"
    "hr{border:0;border-top:1px solid #ddd;margin:1em 0}em{color:#616061}"
)


def view_html(view: dict[str, Any], title: str) -> str:
    body = [f"<h1>{escape(title)}</h1>"]
    for block in view["blocks"]:
        kind = block["type"]
        if kind == "header":
            body.append(f"<h2>{escape(block['text']['text'])}</h2>")
        elif kind == "section":
            body.append(f"<p>{_mrkdwn(block['text']['text'])}</p>")
        elif kind == "divider":
            body.append("<hr>")
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{CSS}</style></head>'
        f"<body>{''.join(body)}</body></html>"
    )


def _mrkdwn(text: str) -> str:
    """Slack's escapes undone, then shown as text; `_x_` in italics."""
    plain = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return re.sub(r"^_(.*)_$", r"<em>\1</em>", escape(plain))
