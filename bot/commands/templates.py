"""The template library's chat commands: `save as NAME`, `templates [NAME[@V] | history | diff |
stats | pin | unpin]`. The lookups and the save are shared with the CLI (bot/cli/templates.py).

`save as NAME` saves exactly the template approved in the thread: the content whose hash the
reviewer approved (`ChangeWorkflow.approved_template` checks it against the approved hash), with
the change it came from and what proposing it cost, so reuse can be counted as tokens saved.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from adapters.chat import Actor, Message
from base.errors import VersionConflict
from base.masking import SecretMask
from bot import messages
from bot.commands.declaration import ChatCommand, CommandKit
from bot.commands.parsing import CommandError
from bot.views import template as template_view
from storage.template_store import SaveResult, TemplateDraft, TemplateStore, name_problem
from workflow.library.catalog import Catalog
from workflow.model import SavedTemplate

if TYPE_CHECKING:  # the workflow (LangGraph) loads with the chat, not with `labbot templates`
    from bot.commands.context import CommandContext, CommandHandler
    from workflow.api import ApprovedTemplate
    from workflow.phases.reviews import TemplateReview

__all__ = ["save", "templates_reply"]

_REF = re.compile(r"^([A-Za-z][\w-]*)(?:@(\d+))?$")


def parse_ref(text: str) -> tuple[str, int | None]:
    """`lab_ospf@2` -> ("lab_ospf", 2); `lab_ospf` -> ("lab_ospf", None)."""
    match = _REF.match(text.strip())
    if match is None:
        raise CommandError(messages.NOT_A_REF.format(text=text))
    return match.group(1).casefold().replace("-", "_"), int(match.group(2) or 0) or None


async def lookup(store: TemplateStore, name: str, version: int | None) -> SavedTemplate:
    found = await store.resolve(name, version, "")
    if found is not None:
        return found
    versions = await store.versions(name)
    if versions:
        listed = ", ".join(map(str, versions))
        raise CommandError(messages.NO_VERSION.format(name=name, version=version, versions=listed))
    known = ", ".join(await store.names()) or messages.NONE_SAVED_YET
    raise CommandError(messages.NO_SAVED.format(name=name, known=known))


async def draft_from_approved(
    approved: ApprovedTemplate,
    store: TemplateStore,
    catalog: Catalog,
    *,
    name: str,
    description: str,
    actor: Actor,
) -> TemplateDraft:
    """The approved payload as a new version; refuses what must not enter the library."""
    payload = approved.payload
    refusal = save_refusal(payload, name, catalog)
    if refusal:
        raise CommandError(refusal)
    phrases: dict[str, str] = {}
    origin_tokens = approved.template_tokens
    for part in approved.parts:
        if part["source"] == "builtin":
            phrases = {**catalog.get(part["name"]).phrases, **phrases}
        elif part["source"] == "saved" and part["version"] is not None:
            saved = await lookup(store, part["name"], part["version"])
            phrases = {**saved.phrases, **phrases}
            origin_tokens += saved.origin_tokens
    return TemplateDraft(
        name=name,
        description=description or payload["description"],
        templates=payload["templates"],
        params_schema=payload["params_schema"],
        example_params=payload["example_params"],
        derive="+".join(part["derive"] for part in approved.parts) or "none",
        phrases=phrases,
        saved_by_id=actor.id,
        saved_by_name=actor.name,
        source_change_id=approved.change_id,
        approved_sha256=approved.sha256,
        origin_tokens=origin_tokens,
        post_checks=payload.get("post_checks"),
        sections=payload.get("sections", []),
        allow=list(dict.fromkeys(a for part in approved.parts for a in part.get("allow", []))),
    )


def save_refusal(payload: TemplateReview, name: str, catalog: Catalog) -> str | None:
    """Why this approved template must not be saved as `name` (None: it may)."""
    if payload["source"] == "rollback":
        return messages.SAVE_ROLLBACK
    if name in catalog.names():
        return messages.SAVE_BUILTIN.format(name=name)
    problem = name_problem(name)
    if problem:
        return problem
    failed = [t for t in payload.get("template_test", {}).values() if t["errors"]]
    if failed:
        errors = "\n".join(f"  {e}" for t in failed for e in t["errors"])
        return messages.SAVE_TEST_FAILED.format(device=failed[0]["device"], errors=errors)
    return None


def save_command(catalog: Catalog, store: TemplateStore) -> CommandHandler:
    async def handler(ctx: CommandContext) -> None:
        args = ctx.command.args
        if len(args) < 2 or args[0].lower() != "as":
            raise CommandError(messages.SAVE_USAGE)
        if not await ctx.may_curate():
            return
        name, version = parse_ref(args[1])
        approved = await ctx.changes.approved_template(ctx.thread_key)
        if approved is None:
            raise CommandError(messages.NOTHING_APPROVED)
        draft = await draft_from_approved(
            approved,
            store,
            catalog,
            name=name,
            description=" ".join(args[2:]),
            actor=ctx.request.actor,
        )
        result = await save(store, draft, version)
        await ctx.say(Message(_saved_text(result.template, approved, result.created)))

    return handler


def _saved_text(saved: SavedTemplate, approved: ApprovedTemplate, created: bool) -> str:
    if not created:
        return messages.ALREADY_SAVED.format(
            label=template_view.label(saved),
            sha=saved.sha256[:12],
            who=saved.saved_by_name,
            at=saved.saved_at,
        )
    return messages.SAVED.format(
        label=template_view.label(saved),
        sha=saved.sha256[:12],
        change_id=approved.change_id,
        approved=approved.sha256[:12],
        name=saved.name,
    )


def catalog_command(catalog: Catalog) -> CommandHandler:
    """`templates [NAME]` without the team's library: the built-in templates only."""

    async def handler(ctx: CommandContext) -> None:
        args = ctx.command.args
        if not args:
            await ctx.say(template_view.present_catalog(catalog))
            return
        await ctx.say(template_view.present_template(catalog.get(args[0]), ctx.mask))

    return handler


def templates_command(catalog: Catalog, store: TemplateStore) -> CommandHandler:
    async def handler(ctx: CommandContext) -> None:
        args, thread = ctx.command.args, ctx.request.thread
        pinning = bool(args) and args[0].lower() in ("pin", "unpin")
        if pinning and not await ctx.may_curate():
            return
        scope = f"{thread.platform}:{thread.channel}"
        reply = await templates_reply(catalog, store, args, scope, ctx.request.actor, ctx.mask)
        await ctx.say(reply)

    return handler


def library_handler(kit: CommandKit) -> CommandHandler:
    """`templates` over the team's library; without one, the built-in templates only."""
    if kit.templates is None:
        return catalog_command(kit.catalog)
    return templates_command(kit.catalog, kit.templates)


def save_handler(kit: CommandKit) -> CommandHandler | None:
    """`save as NAME` needs the team's library (without one: answered with the help)."""
    return save_command(kit.catalog, kit.templates) if kit.templates is not None else None


TEMPLATES = ChatCommand("templates", library_handler, help=messages.HELP_TEMPLATES)
SAVE = ChatCommand("save", save_handler, help=messages.HELP_SAVE)


async def templates_reply(
    catalog: Catalog,
    store: TemplateStore,
    args: tuple[str, ...],
    scope: str,
    actor: Actor,
    mask: SecretMask,
) -> Message:
    """The answer to `templates …` in a channel (`scope`); secret values masked (`mask`)."""
    if not args:
        return template_view.present_library(catalog, await store.latest(), await store.pins(scope))
    verb, rest = args[0].lower(), args[1:]
    if verb == "stats":
        return template_view.present_stats(await store.stats())
    if verb == "history" and len(rest) == 1:
        name = parse_ref(rest[0])[0]
        await lookup(store, name, None)
        return template_view.present_history(name, await store.history(name))
    if verb == "diff":
        old, new = await _diff_pair(store, rest)
        return template_view.present_diff(old, new)
    if verb in ("pin", "unpin"):
        return await _pin(store, verb, rest, scope, actor)
    name, version = parse_ref(args[0])
    if name in catalog.names() and version is None:
        return template_view.present_template(catalog.get(name), mask)
    return template_view.present_saved(await lookup(store, name, version), mask)


async def _diff_pair(
    store: TemplateStore, args: tuple[str, ...]
) -> tuple[SavedTemplate, SavedTemplate]:
    """`NAME@A NAME@B`, `NAME A B`, or `NAME` (its last two versions)."""
    refs: list[tuple[str, Any]]
    if len(args) == 2:
        refs = [parse_ref(args[0]), parse_ref(args[1])]
    elif len(args) == 3 and args[1].isdigit() and args[2].isdigit():
        name = parse_ref(args[0])[0]
        refs = [(name, int(args[1])), (name, int(args[2]))]
    elif len(args) == 1:
        name = parse_ref(args[0])[0]
        versions = (await store.versions(name))[-2:]
        if len(versions) < 2:
            await lookup(store, name, None)
            raise CommandError(messages.ONE_VERSION.format(name=name))
        refs = [(name, versions[0]), (name, versions[1])]
    else:
        raise CommandError(messages.DIFF_USAGE)
    return await lookup(store, *refs[0]), await lookup(store, *refs[1])


async def _pin(
    store: TemplateStore, verb: str, args: tuple[str, ...], scope: str, actor: Actor
) -> Message:
    if len(args) != 1:
        raise CommandError(messages.PIN_USAGE)
    name, version = parse_ref(args[0])
    if verb == "unpin":
        done = await store.unpin(scope, name)
        return Message((messages.UNPINNED if done else messages.NOT_PINNED).format(name=name))
    if version is None:
        raise CommandError(messages.PIN_USAGE)
    await lookup(store, name, version)
    await store.pin(scope, name, version, actor.name)
    return Message(messages.PINNED.format(name=name, version=version))


async def save(store: TemplateStore, draft: TemplateDraft, version: int | None) -> SaveResult:
    """`store.save`, with a version that is not free refused in words (CommandError)."""
    try:
        return await store.save(draft, version)
    except VersionConflict as conflict:
        raise CommandError(version_conflict_text(conflict)) from None


def version_conflict_text(conflict: VersionConflict) -> str:
    name, version, next_version = conflict.name, conflict.version, conflict.next_version
    if version is None:
        return messages.VERSION_RACE.format(name=name)
    if version > next_version or version < 1:
        return messages.VERSION_SKIPS.format(name=name, version=version, next=next_version)
    who = ""
    if conflict.saved_at:
        who = messages.VERSION_TAKEN_BY.format(who=conflict.saved_by, at=conflict.saved_at)
    return messages.VERSION_TAKEN.format(name=name, version=version, next=next_version, who=who)
