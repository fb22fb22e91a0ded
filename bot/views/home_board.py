"""A person's home page with the bot (Slack App Home): what waits for them, their own open
changes, the recent changes; published when they open it and again whenever a gate opens or
closes, for the people who opened it lately (bounded)."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from adapters.chat import Actor, Home, HomePublisher, HomeSection
from adapters.links import thread_link, thread_of
from base.masking import SecretMask
from base.vocabulary import stamp
from bot import messages
from bot.policy.authorize import Authorizer
from bot.policy.open_gates import describe, pending_for
from bot.ports import GateReader
from storage.ports import DecisionRecords

__all__ = ["HomeBoard", "HomeViewers"]

log = logging.getLogger(__name__)
HOMES_KEPT = 200  # people whose home is refreshed when gates open or close (the latest openers)
RECENT = 10


@dataclass
class HomeViewers:
    """The people whose home is published again when gates open or close (the latest
    HOMES_KEPT), and the one pass over them running: refreshes asked meanwhile make one more
    pass, not one each. Many labs' boards share one (bot.runtime.lab_homes): 30 labs moving at
    once republish each home twice at most, not 30 times."""

    people: OrderedDict[str, Actor] = field(default_factory=OrderedDict)
    _running: asyncio.Task[None] | None = None
    _again: bool = False

    def remember(self, actor: Actor) -> None:
        self.people[actor.id] = actor
        self.people.move_to_end(actor.id)
        while len(self.people) > HOMES_KEPT:
            self.people.popitem(last=False)

    def refresh(self, publish: Callable[[Actor], Awaitable[None]]) -> None:
        """Publish every viewer's home again, in the background: now, or after the pass running."""
        if not self.people:
            return
        if self._running is not None and not self._running.done():
            self._again = True
            return
        self._running = asyncio.create_task(self._passes(publish))

    async def _passes(self, publish: Callable[[Actor], Awaitable[None]]) -> None:
        again = True
        while again:
            self._again = False
            for actor in list(self.people.values()):
                try:
                    await publish(actor)
                except Exception as exc:  # one person's home failing does not stop the others
                    log.warning("cannot refresh the home of %s: %s", actor.id, exc)
            again = self._again


@dataclass
class HomeBoard:
    publisher: HomePublisher
    platform: str
    workflow: GateReader
    audit: DecisionRecords
    authorizer: Authorizer
    clock: Callable[[], datetime]
    mask: SecretMask
    # the home as a whole is composed elsewhere (many labs: bot.runtime.lab_homes); None: this
    # board's own
    compose: Callable[[Actor], Awaitable[Home]] | None = None
    viewers: HomeViewers = field(default_factory=HomeViewers)

    async def opened(self, actor: Actor) -> None:
        self.remember(actor)
        await self.publish(actor)

    def remember(self, actor: Actor) -> None:
        """Refresh `actor`'s home when gates open or close here (the latest HOMES_KEPT)."""
        self.viewers.remember(actor)

    def refresh(self) -> None:
        """Publish every recent viewer's home again, in the background (a gate opened/closed)."""
        self.viewers.refresh(self.publish)

    async def publish(self, actor: Actor) -> None:
        home = await (self.compose or self.home_of)(actor)
        await self.publisher.publish_home(actor.id, home)

    async def home_of(self, actor: Actor) -> Home:
        now = self.clock()
        found = await pending_for(
            actor,
            workflow=self.workflow,
            audit=self.audit,
            authorizer=self.authorizer,
            platform=self.platform,
        )
        return Home(
            (
                HomeSection(
                    messages.HOME_WAITING,
                    tuple(describe(i, now) for i in found.to_decide),
                    messages.HOME_NOTHING_WAITING,
                ),
                HomeSection(
                    messages.HOME_MINE,
                    tuple(describe(i, now) for i in found.requested),
                    messages.HOME_NOTHING_MINE,
                ),
                HomeSection(messages.HOME_RECENT, await self._recent(), messages.HOME_NO_RECENT),
            )
        )

    async def _recent(self) -> tuple[str, ...]:
        lines = []
        for change in await self.audit.recent_change_records(self.platform, RECENT):
            summary = await self.audit.change_summary(change.change_id)
            status = summary.events[-1].status if summary and summary.events else "open"
            thread = thread_of(change.platform, change.channel, change.thread_key)
            lines.append(
                messages.HOME_RECENT_LINE.format(
                    change_id=change.change_id,
                    status=status,
                    requester=change.requester_name,
                    text=self.mask.said(change.text)[:80],
                    at=stamp(change.at),
                    link=thread_link(thread),
                )
            )
        return tuple(lines)
