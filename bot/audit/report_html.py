"""The audit report as one self-contained HTML page: inline CSS (with print rules), inline
SVG charts and each change's lab picture as an inline PNG, no script, no external asset.
Every recorded text is escaped: requests, feedback, names, diffs and LLM output are hostile
input; what people typed shows no secret value."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from html import escape

from base.masking import SecretMask
from base.vocabulary import stamp
from bot import messages
from bot.audit.report_chart import grouped_bars
from bot.audit.report_data import Report, ReportChange, per_day, per_person
from bot.audit.table import chain_break
from storage.audit_records import ChangeSummary, GateSummary, PushRow

__all__ = ["render_report"]

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
figure.lab img{max-width:100%;height:auto;border:1px solid #e2e8f0}
section.change{border:1px solid #cbd5e0;border-radius:6px;padding:0 1em 1em;margin:1.5em 0}
@media print{body{margin:0;max-width:none;font-size:11px}
 section.change{break-inside:avoid-page;border:none;border-top:1px solid #000}
 pre{white-space:pre-wrap;border:none}a{color:inherit;text-decoration:none}
 .noprint{display:none}}
"""


def render_report(report: Report, mask: SecretMask) -> str:
    """The self-contained page; what people typed and what devices hold or answered show no
    secret value (`mask`)."""
    body = [
        _heading(report),
        _chain(report),
        _charts(report),
        _timeline(report, mask),
        *(_change(change, mask) for change in report.changes),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(messages.REPORT_TITLE)}</title><style>{CSS}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )


def _heading(report: Report) -> str:
    scope = []
    if report.since is not None:
        scope.append(messages.REPORT_SINCE.format(at=stamp(report.since)))
    if report.change_id:
        scope.append(messages.REPORT_ONE_CHANGE.format(change_id=report.change_id))
    if report.lab:
        scope.insert(0, messages.REPORT_ONE_LAB.format(lab=report.lab))
    left = messages.REPORT_LEFT_OUT.format(count=report.left_out) if report.left_out else ""
    period = messages.REPORT_PERIOD.format(
        period=", ".join(scope) or messages.REPORT_ALL_CHANGES,
        count=len(report.changes),
        left=left,
        at=stamp(report.generated_at),
    )
    return f"<h1>{escape(messages.REPORT_TITLE)}</h1><p>{escape(period)}</p>"


def _chain(report: Report) -> str:
    chain = report.chain
    if chain.ok:
        verdict = f'<span class="ok">{escape(messages.CHAIN_OK)}</span>' + escape(
            messages.REPORT_ROWS_VERIFIED.format(rows=chain.rows)
        )
    else:
        broken = messages.REPORT_BROKEN_AT.format(row=chain_break(chain.first_broken))
        verdict = f'<span class="bad">{escape(messages.REPORT_BROKEN)}</span>{escape(broken)}'
    line = escape(messages.REPORT_CHAIN_LINE).format(
        verdict=verdict, head=f"<code>{escape(chain.head)}</code>"
    )
    return f'<h2>{escape(messages.REPORT_CHAIN)}</h2><p id="chain">{line}</p>'


def _charts(report: Report) -> str:
    return (
        f'<h2>{escape(messages.REPORT_ACTIVITY)}</h2><div class="charts">'
        f"{grouped_bars(messages.REPORT_PER_DAY, per_day(report))}"
        f"{grouped_bars(messages.REPORT_PER_PERSON, per_person(report))}</div>"
    )


def _timeline(report: Report, mask: SecretMask) -> str:
    """A line per change; with a lab column when changes name their lab (many labs) and the
    report is not one lab's."""
    by_lab = not report.lab and any(c.summary.lab for c in report.changes)
    rows = "".join(
        f'<tr><td>{escape(stamp(c.summary.at))}</td><td><a href="#{escape(c.summary.change_id)}">'
        f"{escape(c.summary.change_id)}</a></td>"
        + (f"<td>{escape(c.summary.lab or '—')}</td>" if by_lab else "")
        + f"<td>{escape(c.summary.requester_name)}</td>"
        f"<td>{escape(mask.said(c.summary.text))}</td><td>{escape(_outcome(c.summary))}</td></tr>"
        for c in report.changes
    )
    columns = list(messages.REPORT_TIMELINE_COLUMNS)
    if by_lab:
        columns.insert(2, messages.REPORT_LAB_COLUMN)
    head = "".join(f"<th>{escape(h)}</th>" for h in columns)
    return (
        f"<h2>{escape(messages.REPORT_TIMELINE)}</h2><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _outcome(summary: ChangeSummary) -> str:
    return summary.events[-1].status if summary.events else messages.REPORT_OPEN


def _change(change: ReportChange, mask: SecretMask) -> str:
    s = change.summary
    asked = messages.REPORT_REQUEST.format(
        name=s.requester_name,
        id=s.requester_id,
        platform=s.platform,
        channel=s.channel,
        at=stamp(s.at),
    )
    head = (
        f'<section class="change" id="{escape(s.change_id)}"><h2>{escape(s.change_id)}</h2>'
        f"<p>{escape(asked)}</p><pre>{escape(mask.said(s.text))}</pre>"
    )
    if s.lab:
        head += f'<p class="lab">{escape(messages.REPORT_MADE_ON.format(lab=s.lab))}</p>'

    parts = [head, _picture(change), _templates(change), _diffs(change, mask)]
    parts += [_decisions(s.gates, mask), _refusals(s), _pushes(s, mask), _events(s, mask)]
    parts.append("</section>")
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
        return f"<p>{escape(messages.REPORT_NO_TEMPLATE)}</p>"
    rows = (
        [
            str(t.get("name", "")),
            str(t.get("version") or "—"),
            str(t.get("source", "")),
            Code(str(t.get("sha256", ""))),
            _allowed(t.get("allow")),
        ]
        for t in change.templates
    )
    return _table(messages.REPORT_TEMPLATE, messages.REPORT_TEMPLATE_COLUMNS, rows)


def _allowed(allow: object) -> str:
    """The deny-list rules a template allowed, as recorded with the change."""
    return ", ".join(map(str, allow)) if isinstance(allow, list) and allow else "—"


def _diffs(change: ReportChange, mask: SecretMask) -> str:
    if not change.previews:
        return ""
    parts = [f"<h3>{escape(messages.REPORT_DIFFS)}</h3>"]
    for device, preview in sorted(change.previews.items()):
        diff = mask.config(preview["diff"], preview["platform"])  # as the params gate showed it
        parts.append(f"<h4>{escape(device)}</h4><pre>{_diff_lines(diff)}</pre>")
    return "".join(parts)


def _diff_lines(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        sign = line.lstrip()[:1]  # nested lines are indented before their sign
        kind = {"+": "add", "-": "del"}.get(sign, "")
        text = escape(line)
        out.append(f'<span class="{kind}">{text}</span>' if kind else text)
    return "\n".join(out)


def _decisions(gates: tuple[GateSummary, ...], mask: SecretMask) -> str:
    rows = (
        [
            g.gate,
            v.choice,
            f"{v.actor_name} ({v.actor_id})",
            stamp(v.at),
            Code(v.content_sha256[:16] + "…"),
            mask.said(v.feedback or ""),
        ]
        for g in gates
        for v in g.votes
    )
    return _table(messages.REPORT_DECISIONS, messages.REPORT_DECISION_COLUMNS, rows)


def _refusals(summary: ChangeSummary) -> str:
    if not summary.refusals:
        return f"<p>{escape(messages.REPORT_NO_REFUSALS)}</p>"
    rows = (
        [r.gate or "", f"{r.actor_name} ({r.actor_id})", stamp(r.at), r.reason]
        for r in summary.refusals
    )
    return _table(messages.REPORT_REFUSALS, messages.REPORT_REFUSAL_COLUMNS, rows)


def _pushes(summary: ChangeSummary, mask: SecretMask) -> str:
    if not summary.pushes:
        return f"<p>{escape(messages.REPORT_NOTHING_PUSHED)}</p>"
    rows = (
        [
            p.device,
            p.status,
            stamp(p.at),
            Code(p.lines_sha256[:16] + "…"),
            mask.config(p.detail),
            _post_check(p, mask),
        ]
        for p in summary.pushes
    )
    return _table(messages.REPORT_PUSHES, messages.REPORT_PUSH_COLUMNS, rows)


def _picture(change: ReportChange) -> str:
    """The lab as the thread last showed it (targets, or the push's result and sessions), a PNG
    in the page itself."""
    picture = change.picture
    if picture is None:
        return ""
    data = base64.b64encode(picture.png).decode("ascii")
    alt = escape(messages.REPORT_PICTURE.format(change_id=change.summary.change_id))
    return (
        f'<h3>{escape(messages.REPORT_LAB)}</h3><figure class="lab"><img alt="{alt}" '
        f'width="{picture.width}" height="{picture.height}" src="data:image/png;base64,{data}">'
        "</figure>"
    )


def _post_check(push: PushRow, mask: SecretMask) -> str:
    """The push's post-checks, apart from its own result ("" when none ran)."""
    if push.post_check is None:
        return ""
    detail = mask.config(push.post_check_detail or "")
    return messages.REPORT_POST_CHECK.format(status=push.post_check, detail=detail)


def _events(summary: ChangeSummary, mask: SecretMask) -> str:
    items = "".join(
        f"<li>{escape(stamp(e.at))}: {escape(e.status)} {escape(mask.config(e.detail))}</li>"
        for e in summary.events
    )
    still_open = f"<li>{escape(messages.REPORT_STILL_OPEN)}</li>"
    return f"<h3>{escape(messages.REPORT_OUTCOME)}</h3><ul>{items or still_open}</ul>"
