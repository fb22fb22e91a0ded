"""The template library as people read it, in chat and on the CLI: the list (built-in and saved),
one version, its history, the diff of two versions, and the usage figures. Pure."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence

from adapters.chat import Message
from bot import messages
from bot.presenter import sections_message, template_sections
from storage.template_stats import TemplateStats
from workflow.library.catalog import Catalog
from workflow.model import SavedTemplate


def label(template: SavedTemplate) -> str:
    return f"{template.name}@{template.version}"


def present_library(
    catalog: Catalog, saved: Sequence[SavedTemplate], pins: Mapping[str, int]
) -> Message:
    builtin = [
        f"{name:<22} {catalog.get(name).description}  [{', '.join(catalog.get(name).families)}]"
        for name in catalog.names()
    ]
    rows = []
    for template in saved:
        pin = f" (pinned here: @{pins[template.name]})" if template.name in pins else ""
        rows.append(
            f"{label(template):<22} {template.description}  [{', '.join(template.templates)}]"
            f"  by {template.saved_by_name} {template.saved_at[:10]}{pin}"
        )
    text = (
        f"{len(builtin)} built-in and {len(saved)} saved template(s). Use one: "
        "`apply NAME[@V] to R1,R2 key=value …`, combine: `apply a + b to R1`; see `templates NAME`."
    )
    sections = [("Saved (team library)", "\n".join(rows) or "(none yet: `save as NAME`)", "text")]
    sections.append(("Built-in", "\n".join(builtin), "text"))
    return sections_message(text, sections)


def template_text(template: SavedTemplate) -> str:
    """A version as one readable document (what `show` prints and `diff` compares)."""
    parts = [f"# {label(template)} — {template.description}"]
    for family, source in sorted(template.templates.items()):
        parts.append(f"## template ({family})\n{source.rstrip()}")
    for title, value in (
        ("params_schema", template.params_schema),
        ("example_params", template.example_params),
        *([("post_checks", template.post_checks)] if template.post_checks else []),
    ):
        parts.append(f"## {title}\n" + json.dumps(value, indent=1, sort_keys=True))
    parts.append(f"## derive: {template.derive}")
    return "\n".join(parts) + "\n"


def present_saved(template: SavedTemplate) -> Message:
    change = template.source_change_id
    origin = messages.FROM_CHANGE.format(change_id=change) if change else ""
    text = messages.SAVED_TEMPLATE_SHOWN.format(
        label=label(template),
        description=template.description,
        who=template.saved_by_name,
        at=template.saved_at,
        origin=origin,
        sha=template.sha256[:12],
    )
    sections = template_sections(
        dict(sorted(template.templates.items())),
        template.params_schema,
        template.post_checks,
        template.example_params,
    )
    return sections_message(text, sections)


def present_history(name: str, versions: Sequence[SavedTemplate]) -> Message:
    rows = [
        f"@{t.version:<4} {t.saved_at}  {t.saved_by_name:<12} sha256 {t.sha256[:12]}  "
        f"{t.source_change_id or '(file)'}"
        for t in versions
    ]
    text = messages.TEMPLATE_HISTORY.format(name=name, count=len(rows))
    return sections_message(text, [("", "\n".join(rows), "text")])


def present_diff(old: SavedTemplate, new: SavedTemplate) -> Message:
    diff = "".join(
        difflib.unified_diff(
            template_text(old).splitlines(keepends=True),
            template_text(new).splitlines(keepends=True),
            fromfile=label(old),
            tofile=label(new),
        )
    )
    if not diff:
        return Message(messages.TEMPLATES_SAME.format(old=label(old), new=label(new)))
    text = messages.TEMPLATES_DIFF.format(old=label(old), new=label(new))
    return sections_message(text, [("", diff, "diff")])


def stats_table(stats: TemplateStats) -> str:
    header = f"{'template':<24} {'uses':>4} {'done':>4}  {'tokens':>7} {'saved':>7}  devices"
    rows = [header]
    for row in stats.rows:
        devices = ", ".join(
            f"{name} {ok}/{total}" for name, (ok, total) in sorted(row.devices.items())
        )
        rows.append(
            f"{row.label:<24} {row.uses:>4} {row.done:>4}  {row.tokens_spent:>7} "
            f"{row.tokens_saved:>7}  {devices or '-'}"
        )
    return "\n".join(rows)


def present_stats(stats: TemplateStats) -> Message:
    text = messages.TEMPLATE_STATS.format(
        changes=stats.changes, spent=stats.tokens_spent, saved=stats.tokens_saved
    )
    return sections_message(text, [("", stats_table(stats), "text")])


def stats_json(stats: TemplateStats) -> str:
    return json.dumps(
        {
            "changes": stats.changes,
            "tokens_spent": stats.tokens_spent,
            "tokens_saved": stats.tokens_saved,
            "templates": [
                {
                    "name": row.name,
                    "version": row.version,
                    "source": row.source,
                    "uses": row.uses,
                    "done": row.done,
                    "devices": {d: {"ok": ok, "pushes": n} for d, (ok, n) in row.devices.items()},
                    "tokens_spent": row.tokens_spent,
                    "tokens_saved": row.tokens_saved,
                }
                for row in stats.rows
            ],
        },
        indent=1,
    )
