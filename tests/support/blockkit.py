"""Block Kit as a simple HTML page — a view (the App Home) or a thread of messages (headers,
mrkdwn sections with code fences, buttons, context lines, dividers) — so a browser can show what
Slack would and a test can look at it. Only what labbot's messages and views use."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

Block = dict[str, Any]

CSS = (
    "body{font:15px/1.5 -apple-system,system-ui,sans-serif;max-width:46em;margin:1.5em auto;"
    "color:#1d1c1d}h2{font-size:1.2em;margin:1.2em 0 .3em}p{margin:.25em 0}"
    "hr{border:0;border-top:1px solid #ddd;margin:1em 0}em{color:#616061}"
    "pre{background:#f8f8f8;border:1px solid #ddd;border-radius:4px;padding:.5em;margin:.3em 0;"
    "font:13px/1.4 monospace;white-space:pre-wrap}code{font:13px monospace;color:#c01343;"
    "background:#f6f6f6;border:1px solid #e6e6e6;border-radius:3px;padding:0 .2em}"
    ".msg{display:flex;gap:.6em;margin:.9em 0}.avatar{width:36px;height:36px;border-radius:6px;"
    "flex:none;color:#fff;font-weight:700;display:flex;align-items:center;justify-content:center}"
    ".body{flex:1;min-width:0}.who{font-weight:900}.actions{margin:.5em 0}"
    "button{font:700 14px sans-serif;padding:.35em 1em;margin-right:.5em;border-radius:4px;"
    "border:1px solid #bbb;background:#fff;color:#1d1c1d}button.primary{background:#007a5a;"
    "border-color:#007a5a;color:#fff}button.danger{background:#fff;color:#e01e5a;"
    "border-color:#e01e5a}.context{font-size:12px;color:#616061;margin:.3em 0}"
    ".mention{background:#e8f5fa;color:#1264a3;border-radius:3px;padding:0 .15em}"
)
AVATARS = ("#4a154b", "#1264a3", "#2bac76", "#e8912d")
_FENCE = re.compile(r"```\n?(.*?)\n?```", re.S)
_MENTION = re.compile(r"<@([UW][A-Z0-9]+)>")


def page(title: str, body: Sequence[str]) -> str:
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body><h1>{escape(title)}</h1>{''.join(body)}</body></html>"
    )


def view_html(view: dict[str, Any], title: str) -> str:
    return page(title, [blocks_html(view["blocks"], {})])


def thread_html(
    messages: Sequence[tuple[str, Sequence[Block]]], title: str, people: Mapping[str, str]
) -> str:
    """A thread: each message's author (a name, or the bot) beside its blocks; `people` names
    the user ids that mentions carry."""
    authors = list(dict.fromkeys(author for author, _ in messages))
    shown = []
    for author, blocks in messages:
        colour = AVATARS[authors.index(author) % len(AVATARS)]
        shown.append(
            f'<div class="msg"><div class="avatar" style="background:{colour}">'
            f'{escape(author[:1].upper())}</div><div class="body">'
            f'<div class="who">{escape(author)}</div>{blocks_html(blocks, people)}</div></div>'
        )
    return page(title, shown)


def blocks_html(blocks: Sequence[Block], people: Mapping[str, str]) -> str:
    shown = []
    for block in blocks:
        kind = block["type"]
        if kind == "header":
            shown.append(f"<h2>{escape(block['text']['text'])}</h2>")
        elif kind == "section":
            shown.append(f"<div>{mrkdwn(block['text']['text'], people)}</div>")
        elif kind == "context":
            texts = " ".join(mrkdwn(e.get("text", ""), people) for e in block["elements"])
            shown.append(f'<div class="context">{texts}</div>')
        elif kind == "actions":
            shown.append(f'<div class="actions">{"".join(map(_button, block["elements"]))}</div>')
        elif kind == "divider":
            shown.append("<hr>")
    return "".join(shown)


def _button(element: Block) -> str:
    style = element.get("style", "")
    return f'<button class="{escape(style)}">{escape(element["text"]["text"])}</button>'


def mrkdwn(text: str, people: Mapping[str, str]) -> str:
    """Slack mrkdwn as HTML: code fences as <pre>, `code`, *bold*, _italics_, live mentions;
    Slack's escapes undone first, then everything shown as text."""
    parts = _FENCE.split(text)
    shown = [
        f"<pre>{escape(_unescape(part))}</pre>" if index % 2 else _inline(part, people)
        for index, part in enumerate(parts)
    ]
    return "".join(shown)


def _inline(text: str, people: Mapping[str, str]) -> str:
    pieces = _MENTION.split(text)
    shown = []
    for index, piece in enumerate(pieces):
        if index % 2:
            shown.append(f'<span class="mention">@{escape(people.get(piece, piece))}</span>')
        else:
            shown.append(_styled(escape(_unescape(piece))))
    return "".join(shown).strip("\n").replace("\n", "<br>")


def _styled(html: str) -> str:
    html = re.sub(r"`([^`\n]+)`", r"<code>\1</code>", html)
    html = re.sub(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])", r"<b>\1</b>", html)
    return re.sub(r"(?<![\w_])_([^_\n]+)_(?![\w_])", r"<em>\1</em>", html)


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
