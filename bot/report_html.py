"""The audit report as one self-contained HTML page: inline CSS (with print rules) and inline
SVG charts, no script, no external asset. Every recorded text is escaped: requests, feedback,
names, diffs and LLM output are hostile input."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from base.vocabulary import stamp
from bot.report_chart import grouped_bars
from bot.report_data import Report, ReportChange, per_day, per_person
from storage.audit_records import ChangeSummary, GateSummary

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#1a202c}
h1{font-size:1.6em}h2{border-bottom:2px solid #cbd5e0;margin-top:2em}
table{border-collapse:collapse;width:100%;margin:.5em 0}
th,td{border:1px solid #cbd5e0;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#edf2f7}code,pre{font:12px/1.35 ui-monospace,monospace}
pre{background:#f7fafc;border:1px solid #e2e8f0;padding:.5em;overflow-x:auto;white-space:pre-wrap}
.add{color:#22543d;background:#f0fff4}.del{color:#742a2a;background:#fff5f5}
.ok{color:#22543d;font-weight:bold}.bad{color:#9b2c2c;font-weight:bold}
.charts{display:flex;flex-wrap:wrap;gap:2em}figure{margin:0}
section.change{border:1px solid #cbd5e0;border-radius:6px;padding:0 1em 1em;margin:1.5em 0}
@media print{body{margin:0;max-width:none;font-size:11px}
 section.change{break-inside:avoid-page;border:none;border-top:1px solid #000}
 pre{white-space:pre-wrap;border:none}a{color:inherit;text-decoration:none}
 .noprint{display:none}}
"""


def render_report(report: Report) -> str:
    body = [
        _heading(report),
        _chain(report),
        _charts(report),
        _timeline(report),
        *(_change(change) for change in report.changes),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>labbot audit report</title><style>{CSS}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )


def _heading(report: Report) -> str:
    scope = []
    if report.since is not None:
        scope.append(f"since {stamp(report.since)}")
    if report.change_id:
        scope.append(f"change {report.change_id}")
    period = ", ".join(scope) or "all recorded changes"
    left = f" ({report.left_out} older change(s) left out)" if report.left_out else ""
    return (
        f"<h1>labbot audit report</h1><p>{escape(period)}: {len(report.changes)} change(s)"
        f"{escape(left)}. Generated {escape(stamp(report.generated_at))}.</p>"
    )


def _chain(report: Report) -> str:
    chain = report.chain
    if chain.ok:
        verdict = f'<span class="ok">intact</span>: {chain.rows} row(s) verified'
    else:
        verdict = f'<span class="bad">BROKEN</span> at {escape(chain.first_broken or "?")}'
    return (
        f'<h2>Audit chain</h2><p id="chain">Chain verification: {verdict}. '
        f"Head hash: <code>{escape(chain.head)}</code></p>"
    )


def _charts(report: Report) -> str:
    return (
        '<h2>Activity</h2><div class="charts">'
        f"{grouped_bars('Changes and decisions per day', per_day(report))}"
        f"{grouped_bars('Changes and decisions per person', per_person(report))}</div>"
    )


def _timeline(report: Report) -> str:
    rows = "".join(
        f'<tr><td>{escape(stamp(c.summary.at))}</td><td><a href="#{escape(c.summary.change_id)}">'
        f"{escape(c.summary.change_id)}</a></td><td>{escape(c.summary.requester_name)}</td>"
        f"<td>{escape(c.summary.text)}</td><td>{escape(_outcome(c.summary))}</td></tr>"
        for c in report.changes
    )
    return (
        "<h2>Timeline</h2><table><thead><tr><th>requested</th><th>change</th><th>by</th>"
        f"<th>request</th><th>outcome</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _outcome(summary: ChangeSummary) -> str:
    return summary.events[-1].status if summary.events else "open"


def _change(change: ReportChange) -> str:
    s = change.summary
    head = (
        f'<section class="change" id="{escape(s.change_id)}"><h2>{escape(s.change_id)}</h2>'
        f"<p><b>Request</b> by {escape(s.requester_name)} ({escape(s.requester_id)}) in "
        f"{escape(s.platform)} {escape(s.channel)} at {escape(stamp(s.at))}:</p>"
        f"<pre>{escape(s.text)}</pre>"
    )
    parts = [head, _templates(change), _diffs(change), _decisions(s.gates), _refusals(s)]
    parts += [_pushes(s), _events(s), "</section>"]
    return "".join(parts)


class Code(str):
    """A table cell shown as code (hashes)."""


def _table(title: str, headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A titled table; every cell escaped (`Code` cells in <code>)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(value)}</td>" for value in row) + "</tr>" for row in rows
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f"<h3>{escape(title)}</h3>{table}"


def _cell(value: str) -> str:
    return f"<code>{escape(value)}</code>" if isinstance(value, Code) else escape(value)


def _templates(change: ReportChange) -> str:
    if not change.templates:
        return "<p><b>Template</b>: none recorded (the change ended before a push)</p>"
    rows = (
        [
            str(t.get("name", "")),
            str(t.get("version") or "—"),
            str(t.get("source", "")),
            Code(str(t.get("sha256", ""))),
        ]
        for t in change.templates
    )
    return _table("Template", ("name", "version", "source", "sha256"), rows)


def _diffs(change: ReportChange) -> str:
    if not change.previews:
        return ""
    parts = ["<h3>Per-device diff</h3>"]
    for device, preview in sorted(change.previews.items()):
        parts.append(f"<h4>{escape(device)}</h4><pre>{_diff_lines(preview['diff'])}</pre>")
    return "".join(parts)


def _diff_lines(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        sign = line.lstrip()[:1]  # nested lines are indented before their sign
        kind = {"+": "add", "-": "del"}.get(sign, "")
        text = escape(line)
        out.append(f'<span class="{kind}">{text}</span>' if kind else text)
    return "\n".join(out)


def _decisions(gates: tuple[GateSummary, ...]) -> str:
    rows = (
        [
            g.gate,
            v.choice,
            f"{v.actor_name} ({v.actor_id})",
            stamp(v.at),
            Code(v.content_sha256[:16] + "…"),
            v.feedback or "",
        ]
        for g in gates
        for v in g.votes
    )
    headers = ("gate", "choice", "who", "when", "content sha256", "feedback")
    return _table("Decisions", headers, rows)


def _refusals(summary: ChangeSummary) -> str:
    if not summary.refusals:
        return "<p>No refusals.</p>"
    rows = (
        [r.gate or "", f"{r.actor_name} ({r.actor_id})", stamp(r.at), r.reason]
        for r in summary.refusals
    )
    return _table("Refusals", ("gate", "who", "when", "reason"), rows)


def _pushes(summary: ChangeSummary) -> str:
    if not summary.pushes:
        return "<p>Nothing was pushed.</p>"
    rows = (
        [p.device, p.status, stamp(p.at), Code(p.lines_sha256[:16] + "…"), p.detail]
        for p in summary.pushes
    )
    headers = ("device", "result", "when", "lines sha256", "detail")
    return _table("Push and post-checks", headers, rows)


def _events(summary: ChangeSummary) -> str:
    items = "".join(
        f"<li>{escape(stamp(e.at))}: {escape(e.status)} {escape(e.detail)}</li>"
        for e in summary.events
    )
    return f"<h3>Outcome</h3><ul>{items or '<li>still open</li>'}</ul>"
