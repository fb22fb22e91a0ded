"""A read's output in the platform's parsed form, as a compact table where a parser exists.

FRR answers the post-check topics (OSPF neighbours, routes, BGP summary) in its own JSON: the
read asks for `… json` and the post-check parsers (workflow.postchecks.parsers) read it. IOS-like
platforms are parsed with ntc-templates (TextFSM) when a template exists for the command. With
neither, or with a filter (`| include`) or `raw`, the device's text is shown as it came.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ntc_templates.parse import parse_output

from workflow.model import platform_family
from workflow.postchecks.parsers import COMMANDS, RoutingState, Topic, parse

__all__ = ["command_to_send", "grid", "parsed_table"]

MAX_ROWS = 200  # a longer table is cut
MAX_CELL = 40  # characters per cell
WIDE = 4  # a single row with more columns is shown as `key  value` lines
TEXTFSM_FAMILIES = ("cisco_ios", "cisco_xe", "cisco_nxos", "arista_eos", "juniper_junos")


def command_to_send(platform: str, command: str, raw: bool) -> str:
    """What to send for a parsed answer: FRR's `… json` form of a post-check topic."""
    if raw or "|" in command or platform_family(platform) != "frr":
        return command
    return f"{command} json" if _frr_topic(f"{command} json") else command


def _frr_topic(command: str) -> Topic | None:
    return next((t for t, c in COMMANDS["frr"].items() if c == command), None)


def parsed_table(platform: str, sent: str, output: str, more: str) -> str | None:
    """The output as a table, or None when no parser exists (or it cannot read the output);
    `more` says what was cut (see `grid`)."""
    family = platform_family(platform)
    if "|" in sent:
        return None
    try:
        if family == "frr":
            topic = _frr_topic(sent)
            return _topic_table(topic, parse(platform, {topic: output}), more) if topic else None
        if family in TEXTFSM_FAMILIES:
            rows = parse_output(platform=family, command=sent, data=output)
            return grid(rows, more) if isinstance(rows, list) and rows else None
    except Exception:  # no template, or output the parser cannot read: show the text instead
        return None
    return None


def _topic_table(topic: Topic, state: RoutingState, more: str) -> str:
    if topic == "ospf":
        rows = [{"neighbour": a, "state": s} for a, s in state.ospf_neighbors.items()]
    elif topic == "bgp":
        rows = [{"peer": a, "state": s} for a, s in state.bgp_peers.items()]
    else:
        rows = [{"prefix": p, "selected": ",".join(sorted(v))} for p, v in state.routes.items()]
    return grid(rows, more) if rows else "(none)"


def grid(rows: Sequence[Mapping[str, Any]], more: str) -> str:
    """Rows of equal keys as aligned columns (lists joined by commas, long cells cut); one wide
    row (`show version`) as `key  value` lines, its empty fields left out. Past MAX_ROWS rows the
    table is cut and ends with the caller's line `more`, formatted with the `count` left out."""
    columns = list(rows[0])
    if len(rows) == 1 and len(columns) > WIDE:
        width = max(len(c) for c in columns)
        pairs = [(c, _cell(rows[0][c])) for c in columns]
        return "\n".join(f"{c.ljust(width)}  {v}" for c, v in pairs if v)
    cells = [[_cell(row.get(column)) for column in columns] for row in rows[:MAX_ROWS]]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    if len(rows) > MAX_ROWS:
        lines.append(more.format(count=len(rows) - MAX_ROWS))
    return "\n".join(lines)


def _cell(value: Any) -> str:
    text = ",".join(map(str, value)) if isinstance(value, list) else str(value or "")
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"
