"""`TemplateStore`: the team's template library: immutable versions, channel pins, uses.

A version is addressed as `name@version` and by the sha256 of its content
(`workflow.library.catalog.template_sha256`). Saves of one library run one at a time
(PostgreSQL advisory lock, SQLite write lock) and the unique key (name, version) is the final
word, so two saves racing for one name get versions N and N+1, never one version twice. A save
asking for an explicit version that another save already took is refused (`VersionConflict`)
and stores nothing; saving content already in the library stores nothing and returns that
version. Which templates each change used is appended to the audit hash chain
(`template_uses`), so `labbot audit verify` covers it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from base.errors import VersionConflict
from base.vocabulary import as_utc, stamp, utc_now
from storage import audit_chain
from storage.audit_seal import open_row, seal_row
from storage.db import serialized_transaction
from storage.encryption import StorageKeys
from storage.schema import saved_templates, template_pins, template_uses
from storage.template_stats import TemplateStats, compute_stats
from workflow.hashing import canonical_json
from workflow.library.catalog import template_sha256
from workflow.model import ParamSpec, SavedTemplate, TemplatePart
from workflow.postcheck_spec import PostChecks

__all__ = ["SaveResult", "TemplateDraft", "TemplateStore", "name_problem"]

TEMPLATE_LOCK_KEY = 0x1AB_B07_009
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@dataclass(frozen=True)
class TemplateDraft:
    """What a save stores; the store adds the version, the hash and the time."""

    name: str
    description: str
    templates: Mapping[str, str]
    params_schema: Mapping[str, ParamSpec]
    example_params: Mapping[str, Any]
    saved_by_id: str
    saved_by_name: str
    derive: str = "none"
    phrases: Mapping[str, str] | None = None
    source_change_id: str | None = None
    approved_sha256: str | None = None
    origin_tokens: int = 0
    post_checks: PostChecks | None = None
    sections: Sequence[str] = ()  # what it may touch (required to save: see templates_cli)
    allow: Sequence[str] = ()  # deny-list rules it may break (workflow.safety.allowances)

    @property
    def sha256(self) -> str:
        return template_sha256(
            self.name,
            self.description,
            self.templates,
            self.params_schema,
            self.example_params,
            self.post_checks,
            self.sections,
            self.allow,
        )


@dataclass(frozen=True)
class SaveResult:
    template: SavedTemplate
    created: bool  # False: this exact content was already saved (as `template`)


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a saved template, or None."""
    if NAME_PATTERN.match(name):
        return None
    return (
        f"{name!r} is not a template name: use lower-case letters, digits and _ "
        "(starting with a letter, at most 64), e.g. lab_ospf"
    )


class TemplateStore:
    """`workflow.ports.SavedTemplates` in the database, plus saving, pins, history and uses."""

    def __init__(
        self,
        engine: AsyncEngine,
        chain: audit_chain.AuditChain | None = None,
        *,
        keys: StorageKeys | None = None,
    ) -> None:
        """`chain`: the audit chain's key and anchor, for the `template_uses` rows; `keys`: what
        a template's text, defaults and examples are sealed with (default: the chain's)."""
        self.engine = engine
        self.chain = chain or audit_chain.AuditChain()
        self.keys = keys or self.chain.storage_keys

    # --- saving -------------------------------------------------------------------------------

    async def save(self, draft: TemplateDraft, version: int | None = None) -> SaveResult:
        """Store `draft` as the next version of its name (or as `version`, if still free)."""
        problem = name_problem(draft.name)
        if problem:
            raise ValueError(problem)
        sha256 = draft.sha256
        try:
            async with serialized_transaction(self.engine, TEMPLATE_LOCK_KEY) as conn:
                found = await conn.execute(
                    sa.select(saved_templates).where(saved_templates.c.sha256 == sha256)
                )
                existing = found.first()
                if existing is not None:
                    return SaveResult(self._saved(existing), created=False)
                latest = await conn.scalar(
                    sa.select(sa.func.max(saved_templates.c.version)).where(
                        saved_templates.c.name == draft.name
                    )
                )
                await self._check_free(conn, draft.name, version, latest or 0)
                row = _row(draft, version or (latest or 0) + 1, sha256)
                sealed = seal_row(saved_templates, row, self.keys)
                await conn.execute(sa.insert(saved_templates), sealed)
        except IntegrityError:
            # Only reachable if a writer bypassed the lock: the unique keys still hold.
            raise VersionConflict(draft.name, None, 0) from None
        return SaveResult(_saved(row), created=True)

    async def _check_free(self, conn: Any, name: str, version: int | None, latest: int) -> None:
        """Raise VersionConflict when an explicit `version` cannot be used."""
        if version is None or version == latest + 1:
            return
        if version > latest + 1 or version < 1:
            raise VersionConflict(name, version, latest + 1)
        row = (
            await conn.execute(
                sa.select(saved_templates).where(
                    saved_templates.c.name == name, saved_templates.c.version == version
                )
            )
        ).first()
        saved_by, saved_at = (row.saved_by_name, stamp(row.saved_at)) if row else ("", "")
        raise VersionConflict(name, version, latest + 1, saved_by, saved_at)

    # --- reading (workflow.ports.SavedTemplates) -------------------------------------------

    async def resolve(self, name: str, version: int | None, scope: str) -> SavedTemplate | None:
        pinned = False
        if version is None and scope:
            version = await self.pinned(scope, name)
            pinned = version is not None
        query = sa.select(saved_templates).where(saved_templates.c.name == name)
        if version is not None:
            query = query.where(saved_templates.c.version == version)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query.order_by(saved_templates.c.version.desc()))).first()
        if row is None:
            return None
        found = self._saved(row)
        return SavedTemplate(**{**found.__dict__, "pinned": pinned}) if pinned else found

    async def by_sha256(self, sha256: str) -> SavedTemplate | None:
        query = sa.select(saved_templates).where(saved_templates.c.sha256 == sha256)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return self._saved(row) if row else None

    async def versions(self, name: str) -> list[int]:
        return [t.version for t in await self.history(name)]

    async def history(self, name: str) -> list[SavedTemplate]:
        """Every version of `name`, oldest first."""
        query = sa.select(saved_templates).where(saved_templates.c.name == name)
        async with self.engine.connect() as conn:
            rows = await conn.execute(query.order_by(saved_templates.c.version))
            return [self._saved(row) for row in rows]

    async def latest_versions(self, names: Sequence[str]) -> dict[str, int]:
        column = saved_templates.c.version
        query = (
            sa.select(saved_templates.c.name, sa.func.max(column))
            .where(saved_templates.c.name.in_(list(names)))
            .group_by(saved_templates.c.name)
        )
        async with self.engine.connect() as conn:
            return {name: int(latest) for name, latest in await conn.execute(query)}

    async def names(self) -> list[str]:
        query = sa.select(saved_templates.c.name).distinct().order_by(saved_templates.c.name)
        async with self.engine.connect() as conn:
            return list((await conn.scalars(query)).all())

    async def latest(self) -> list[SavedTemplate]:
        """The newest version of every saved name, by name."""
        newest = await self.latest_versions(await self.names())
        found = [await self.resolve(name, version, "") for name, version in newest.items()]
        return [template for template in found if template is not None]

    # --- pins -----------------------------------------------------------------------------

    async def pin(self, scope: str, name: str, version: int, actor: str) -> None:
        """Make `name` mean `name@version` in `scope` (a channel/room) until unpinned."""
        where = (template_pins.c.scope == scope, template_pins.c.name == name)
        row = {"scope": scope, "name": name, "version": version, "pinned_by": actor}
        async with serialized_transaction(self.engine, TEMPLATE_LOCK_KEY) as conn:
            await conn.execute(sa.delete(template_pins).where(*where))
            await conn.execute(sa.insert(template_pins), {**row, "pinned_at": utc_now()})

    async def unpin(self, scope: str, name: str) -> bool:
        where = (template_pins.c.scope == scope, template_pins.c.name == name)
        async with serialized_transaction(self.engine, TEMPLATE_LOCK_KEY) as conn:
            return bool((await conn.execute(sa.delete(template_pins).where(*where))).rowcount)

    async def pinned(self, scope: str, name: str) -> int | None:
        query = sa.select(template_pins.c.version).where(
            template_pins.c.scope == scope, template_pins.c.name == name
        )
        async with self.engine.connect() as conn:
            return await conn.scalar(query)

    async def pins(self, scope: str) -> dict[str, int]:
        query = sa.select(template_pins.c.name, template_pins.c.version).where(
            template_pins.c.scope == scope
        )
        async with self.engine.connect() as conn:
            return {name: version for name, version in await conn.execute(query)}

    # --- uses -------------------------------------------------------------------------------

    async def record_use(self, change_id: str, parts: Sequence[TemplatePart], status: str) -> None:
        """Which templates a change used and how it ended, as a link of the audit chain."""
        content = {
            "change_id": change_id,
            "parts": canonical_json([dict(part) for part in parts]).decode(),
            "status": status,
        }
        async with self.chain.transaction(self.engine) as chain:
            await chain.append(template_uses, content)

    async def uses_of(self, change_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """change id -> the template parts it used (name, version, sha256, source), recorded
        when the change ended."""
        query = sa.select(template_uses).where(template_uses.c.change_id.in_(list(change_ids)))
        async with self.engine.connect() as conn:
            rows = list(await conn.execute(query.order_by(template_uses.c.seq)))
        return {row.change_id: json.loads(row.parts) for row in rows}

    async def stats(self) -> TemplateStats:
        async with self.engine.connect() as conn:
            return await compute_stats(conn)

    def _saved(self, row: Any) -> SavedTemplate:
        """A stored row as saved: sealed text opened (StorageError when no key opens it)."""
        return _saved(open_row(saved_templates, row, self.keys))


def _row(draft: TemplateDraft, version: int, sha256: str) -> dict[str, Any]:
    return {
        "name": draft.name,
        "version": version,
        "sha256": sha256,
        "description": draft.description,
        "families": ",".join(sorted(draft.templates)),
        "templates": dict(draft.templates),
        "params_schema": dict(draft.params_schema),
        "example_params": dict(draft.example_params),
        "derive": draft.derive,
        "phrases": dict(draft.phrases or {}),
        "saved_by_id": draft.saved_by_id,
        "saved_by_name": draft.saved_by_name,
        "saved_at": utc_now(),
        "source_change_id": draft.source_change_id,
        "approved_sha256": draft.approved_sha256,
        "origin_tokens": draft.origin_tokens,
        "post_checks": dict(draft.post_checks) if draft.post_checks else None,
        "sections": list(draft.sections) or None,
        "allow": list(draft.allow) or None,
    }


def _saved(row: Any) -> SavedTemplate:
    data = row._mapping if hasattr(row, "_mapping") else row
    return SavedTemplate(
        name=data["name"],
        version=int(data["version"]),
        sha256=data["sha256"],
        description=data["description"],
        templates=_json(data["templates"]),
        params_schema=_json(data["params_schema"]),
        example_params=_json(data["example_params"]),
        derive=data["derive"],
        phrases=_json(data["phrases"]),
        saved_by_id=data["saved_by_id"],
        saved_by_name=data["saved_by_name"],
        saved_at=as_utc(data["saved_at"]).isoformat(timespec="seconds"),
        source_change_id=data["source_change_id"],
        origin_tokens=int(data["origin_tokens"]),
        post_checks=_json(data["post_checks"]) if data["post_checks"] else None,
        sections=tuple(_json(data["sections"]) or ()),
        allow=tuple(_json(data["allow"]) or ()),
    )


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value
