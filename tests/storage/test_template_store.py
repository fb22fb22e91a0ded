"""The template library on SQLite and PostgreSQL: versions, races, pins, uses in the audit."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from base.errors import VersionConflict
from storage.audit_records import DevicePush
from storage.audit_store import AuditStore
from storage.template_store import TemplateDraft, TemplateStore
from tests.support.sealing import SEALING
from workflow.model import TemplatePart
from workflow.postcheck_spec import PostCheck, PostChecks

OSPF = "router ospf {{ process_id }}\n"


def draft(
    source: str = OSPF, name: str = "lab_ospf", who: str = "bob", **extra: object
) -> TemplateDraft:
    return TemplateDraft(
        name=name,
        description="OSPF for the lab",
        templates={"cisco_ios": source},
        params_schema={"process_id": {"type": "int", "default": 1}},
        example_params={"process_id": 1},
        sections=["router ospf *"],
        saved_by_id=f"console:{who}",
        saved_by_name=who,
        **extra,  # type: ignore[arg-type]
    )


async def test_versions_are_numbered_immutable_and_addressed_by_name_version_and_hash(
    engine: AsyncEngine,
) -> None:
    store = TemplateStore(engine, SEALING)
    first = await store.save(
        draft(),
    )
    second = await store.save(draft("router ospf {{ process_id }}\n log-adjacency-changes\n"))
    again = await store.save(draft())  # the same content: nothing new is stored
    assert (first.template.version, second.template.version) == (1, 2)
    assert first.created and second.created and not again.created
    assert again.template.version == 1 and again.template.sha256 == first.template.sha256
    latest = await store.resolve("lab_ospf", None, "")
    older = await store.resolve("lab_ospf", 1, "")
    assert latest is not None and latest.version == 2
    assert older is not None and older.templates == {"cisco_ios": OSPF}
    assert await store.by_sha256(second.template.sha256) == second.template
    assert await store.resolve("lab_ospf", 9, "") is None
    assert await store.resolve("nope", None, "") is None
    assert await store.versions("lab_ospf") == [1, 2]
    assert await store.latest_versions(["lab_ospf", "nope"]) == {"lab_ospf": 2}
    assert second.template.saved_by_name == "bob" and second.template.saved_at.endswith("+00:00")


async def test_racing_saves_get_consecutive_versions(engine: AsyncEngine) -> None:
    store = TemplateStore(engine, SEALING)
    sources = [f"router ospf {{{{ process_id }}}}\n! variant {n}\n" for n in range(5)]
    results = await asyncio.gather(*(store.save(draft(s)) for s in sources))
    assert sorted(r.template.version for r in results) == [1, 2, 3, 4, 5]
    assert await store.versions("lab_ospf") == [1, 2, 3, 4, 5]


async def test_two_saves_racing_for_one_explicit_version_one_wins_the_other_stores_nothing(
    engine: AsyncEngine,
) -> None:
    store = TemplateStore(engine, SEALING)
    outcomes = await asyncio.gather(
        store.save(draft("! from bob\n", who="bob"), version=1),
        store.save(draft("! from carol\n", who="carol"), version=1),
        return_exceptions=True,
    )
    won = [o for o in outcomes if not isinstance(o, BaseException)]
    lost = [o for o in outcomes if isinstance(o, VersionConflict)]
    assert len(won) == 1 and len(lost) == 1
    [conflict] = lost
    assert (conflict.name, conflict.version, conflict.next_version) == ("lab_ospf", 1, 2)
    assert conflict.saved_by in ("bob", "carol") and conflict.saved_at.endswith(" UTC")
    assert await store.versions("lab_ospf") == [1]
    with pytest.raises(VersionConflict) as skipping:
        await store.save(draft("! skipping ahead\n"), version=7)
    assert (skipping.value.version, skipping.value.next_version) == (7, 2)
    with pytest.raises(ValueError, match="not a template name"):
        await store.save(draft(name="Lab OSPF"))
    assert await store.names() == ["lab_ospf"]


async def test_a_channel_pin_wins_over_the_latest_only_in_that_channel(engine: AsyncEngine) -> None:
    store = TemplateStore(engine, SEALING)
    await store.save(draft())
    await store.save(draft("! v2\n"))
    await store.pin("slack:C1", "lab_ospf", 1, "bob")
    in_channel = await store.resolve("lab_ospf", None, "slack:C1")
    elsewhere = await store.resolve("lab_ospf", None, "slack:C2")
    assert in_channel is not None and in_channel.version == 1 and in_channel.pinned
    assert elsewhere is not None and elsewhere.version == 2 and not elsewhere.pinned
    assert await store.pins("slack:C1") == {"lab_ospf": 1}
    assert await store.unpin("slack:C1", "lab_ospf") and not await store.unpin("slack:C1", "x")
    unpinned = await store.resolve("lab_ospf", None, "slack:C1")
    assert unpinned is not None and unpinned.version == 2


async def test_uses_join_the_audit_chain_and_feed_the_figures(engine: AsyncEngine) -> None:
    store, audit = TemplateStore(engine, SEALING), AuditStore(engine, chain=SEALING)
    saved = (await store.save(draft(origin_tokens=900))).template
    part = TemplatePart(
        name="lab_ospf", version=1, sha256=saved.sha256, source="saved", derive="routing"
    )
    tokens = {"total": {"input_tokens": 80, "output_tokens": 40, "total_tokens": 120}}
    for change_id, results in (("chg-1", ("success", "success")), ("chg-2", ("success", "failed"))):
        for device, status in zip(("R1", "R2"), results, strict=True):
            await audit.record_pushes(
                change_id,
                [DevicePush(device=device, lines_sha256="0" * 64, status=status, detail="")],
            )
        await audit.record_change_event(change_id=change_id, status="done", tokens=tokens)
        await store.record_use(change_id, [part], "done" if "failed" not in results else "failed")
    stats = await store.stats()
    entries = [e for e in await audit.entries(change_id="chg-2") if e.kind == "template"]
    assert (await audit.verify()).ok
    [used] = entries[0].templates
    assert (used.name, used.version, used.source, entries[0].status) == (
        "lab_ospf",
        1,
        "saved",
        "failed",  # chg-2 failed on R2
    )
    assert entries[0].sha256 == saved.sha256
    [row] = stats.rows
    assert (row.label, row.uses, row.done) == ("lab_ospf@1", 2, 1)
    assert row.devices == {"R1": [2, 2], "R2": [1, 2]}
    assert (stats.tokens_spent, stats.tokens_saved) == (240, 1800)


async def test_a_saved_version_keeps_its_post_checks(engine: AsyncEngine) -> None:
    store = TemplateStore(engine, SEALING)
    checks = PostChecks(checks=[PostCheck(kind="ospf_neighbors")], timeout=30.0)
    plain = await store.save(draft())
    checked = await store.save(draft(post_checks=checks))
    assert checked.created and checked.template.version == 2  # other content, other version
    assert checked.template.sha256 != plain.template.sha256
    resolved = await store.resolve("lab_ospf", 2, "")
    assert resolved is not None and resolved.post_checks == checks
    assert (await store.resolve("lab_ospf", 1, "")).post_checks is None  # type: ignore[union-attr]


async def test_a_saved_version_keeps_what_it_allows_in_its_hash(engine: AsyncEngine) -> None:
    """`allow:` is content: another allowance is another version; none reads back as ()."""
    store = TemplateStore(engine, SEALING)
    plain = await store.save(draft())
    allowing = await store.save(draft(allow=["logging-host"]))
    assert allowing.created and allowing.template.sha256 != plain.template.sha256
    resolved = await store.resolve("lab_ospf", 2, "")
    assert resolved is not None and resolved.allow == ("logging-host",)
    assert (await store.resolve("lab_ospf", 1, "")).allow == ()  # type: ignore[union-attr]
