"""The template library as people read it, in chat and on the CLI: the list (built-in and saved),
one template or version (one layout for both), its history, the diff of two versions, and the
usage figures. Pure."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.chat import Message
from base.masking import SecretMask
from bot import messages
from bot.views.code_blocks import sections_message
from storage.template_stats import TemplateStats
from workflow.denylist.platform_rules import describe_allowance
from workflow.library.catalog import Catalog, LibraryTemplate
from workflow.model import ParamSpec, SavedTemplate
from workflow.postcheck_spec import PostChecks

__all__ = [
    "label",
    "present_catalog",
    "present_diff",
    "present_history",
    "present_library",
    "present_saved",
    "present_stats",
    "present_template",
    "stats_json",
]


def post_checks_section(checks: PostChecks | None) -> list[tuple[str, str, str]]:
    """What a template proves after its push, one line per check ([] when it declares none)."""
    if not checks:
        return []
    lines = [
        "- "
        + messages.POST_CHECK_TEXT[check["kind"]].format(
            param=check.get("param", ""),
            protocol=f" by {check['protocol']}" if "protocol" in check else "",
        )
        for check in checks["checks"]
    ]
    title = messages.POST_CHECKS_TITLE.format(timeout=checks["timeout"])
    return [(title, "\n".join(lines), "text")]


def schema_text(
    schema: Mapping[str, ParamSpec], mask: SecretMask, requested: Mapping[str, Any] | None = None
) -> str:
    """One `name: type = default (optional) — description` row per parameter; a value the
    request gave shows as `= 1 (from the request; default 0)`. The LLM's own template carries
    the request's values as its defaults. Secret values are shown masked."""
    rows = []
    for name, spec in schema.items():
        optional = "" if spec.get("required", True) else " (optional)"
        value = _value_text(name, spec, requested or {}, mask)
        description = spec.get("description", "")
        row = f"{name}: {spec.get('type', '?')}{value}{optional}"
        rows.append(f"{row} — {description}" if description else row)
    return "\n".join(rows) or messages.NONE


def _value_text(name: str, spec: ParamSpec, requested: Mapping[str, Any], mask: SecretMask) -> str:
    """` = default`, ` = value (from the request...)`, or nothing when there is neither."""

    def shown(value: Any) -> str:
        return json.dumps(mask.param(name, value), ensure_ascii=False)

    if name not in requested:
        return f" = {shown(spec['default'])}" if "default" in spec else ""
    given = shown(requested[name])
    if "default" not in spec:
        return " = " + messages.FROM_REQUEST.format(value=given)
    return " = " + messages.FROM_REQUEST_DEFAULT.format(value=given, default=shown(spec["default"]))


def present_catalog(catalog: Catalog) -> Message:
    rows = []
    for name in catalog.names():
        template = catalog.get(name)
        rows.append(f"{name:<18} {template.description}  [{', '.join(template.families)}]")
    text = messages.CATALOG.format(count=len(rows))
    return sections_message(text, [(messages.SECTION_LIBRARY, "\n".join(rows), "text")])


def template_sections(
    templates: Mapping[str, str],
    params_schema: Mapping[str, ParamSpec],
    post_checks: PostChecks | None,
    example_params: Mapping[str, Any],
    may_touch: Sequence[str],
    mask: SecretMask,
    allow: Sequence[str] = (),
) -> list[tuple[str, str, str]]:
    """A template as people read it (built-in or saved): its source per family, its parameters,
    the sections it may touch, the deny-list rules it may break, its post-checks and its
    example parameters; secret values masked (`mask`)."""
    sections = [
        (messages.SECTION_TEMPLATE.format(family=family), mask.config(source), "jinja")
        for family, source in templates.items()
    ]
    sections.append((messages.SECTION_PARAMETERS, schema_text(params_schema, mask), "yaml"))
    touch = "\n".join(may_touch) or messages.NO_SECTIONS
    sections.append((messages.SECTION_MAY_TOUCH, touch, "text"))
    if allow:
        described = "\n".join(describe_allowance(entry) for entry in allow)
        sections.append((messages.SECTION_MAY_BREAK, described, "text"))
    sections.extend(post_checks_section(post_checks))
    example = json.dumps(mask.param("", dict(example_params)), indent=1, sort_keys=True)
    sections.append((messages.SECTION_EXAMPLE_PARAMS, example, "json"))
    return sections


def present_template(template: LibraryTemplate, mask: SecretMask) -> Message:
    sections = template_sections(
        template.templates,
        template.params_schema,
        template.post_checks,
        template.example_params,
        template.sections,
        mask,
        template.allow,
    )
    text = messages.TEMPLATE_SHOWN.format(name=template.name, description=template.description)
    return sections_message(text, sections)


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
        pinned = template.name in pins
        pin = messages.LIBRARY_PINNED.format(version=pins[template.name]) if pinned else ""
        rows.append(
            f"{label(template):<22} {template.description}  [{', '.join(template.templates)}]"
            + messages.LIBRARY_SAVED_BY.format(
                who=template.saved_by_name, day=template.saved_at[:10], pin=pin
            )
        )
    text = messages.LIBRARY.format(builtin=len(builtin), saved=len(saved))
    saved_rows = "\n".join(rows) or messages.LIBRARY_NONE_SAVED
    sections = [(messages.SECTION_SAVED, saved_rows, "text")]
    sections.append((messages.SECTION_BUILTIN, "\n".join(builtin), "text"))
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
    parts.append("## sections\n" + ("\n".join(template.sections) or messages.NO_SECTIONS))
    if template.allow:
        parts.append("## allow\n" + "\n".join(template.allow))
    parts.append(f"## derive: {template.derive}")
    return "\n".join(parts) + "\n"


def present_saved(template: SavedTemplate, mask: SecretMask) -> Message:
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
        template.sections,
        mask,
        template.allow,
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
