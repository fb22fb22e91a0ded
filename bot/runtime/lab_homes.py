"""A person's App Home with many labs (LABBOT_LABS): per lab they are among the people of, or
may decide in, what waits for them there and their own open changes there, each lab judged by
its own rules (a student of pod-1 sees nothing of pod-2) and grouped under the lab's name.
A home is a person's, not a place's: every lab's board knows the viewer and publishes this
whole home when a gate opens or closes in its lab."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from adapters.chat import Actor, Home, HomeSection
from adapters.user_ids import canonical_user_id
from bot import messages
from bot.policy.lab_gates import pending_by_lab
from bot.policy.open_gates import describe
from bot.runtime.wiring import Runtime

__all__ = ["home_in_labs"]


@dataclass(frozen=True)
class LabHomes:
    """The homes over `runtimes` (the router's own mapping: labs added later count)."""

    runtimes: Mapping[str, Runtime]

    async def home_of(self, actor: Actor) -> Home:
        first = next(iter(self.runtimes.values()))  # one database: any lab's stores read all
        board = first.service.home_board
        platform = board.platform if board is not None else None
        judges = {name: runtime.service.authorizer for name, runtime in self.runtimes.items()}
        groups = await pending_by_lab(
            actor, judges, workflow=first.workflow, audit=first.audit, platform=platform
        )
        now = first.service.clock()
        sections = []
        for group in groups:
            waiting = tuple(describe(item, now) for item in group.pending.to_decide)
            title = messages.HOME_LAB_WAITING.format(lab=group.lab)
            sections.append(HomeSection(title, waiting, messages.HOME_NOTHING_WAITING))
            if group.pending.requested:
                mine = tuple(describe(item, now) for item in group.pending.requested)
                title = messages.HOME_LAB_MINE.format(lab=group.lab)
                sections.append(HomeSection(title, mine, messages.HOME_NOTHING_MINE))
        if not sections:
            sections.append(HomeSection(messages.HOME_NO_LAB, (), messages.HOME_NO_LAB_EMPTY))
        return Home(tuple(sections))


def home_in_labs(runtimes: Mapping[str, Runtime], actor: Actor) -> str:
    """Make every lab's home board show `actor` the home of all labs and refresh it when gates
    open or close in its lab (the boards share their viewers, so a refresh asked by many labs at
    once is one pass, or two); the lab whose decision service publishes it now (the first)."""
    homes = LabHomes(runtimes)
    viewer = replace(actor, id=canonical_user_id(actor.id))  # as the service will know them
    boards = [r.service.home_board for r in runtimes.values() if r.service.home_board is not None]
    for board in boards:  # one home a person: one list of viewers, one refresh at a time
        board.compose, board.viewers = homes.home_of, boards[0].viewers
    if boards:
        boards[0].remember(viewer)
    return next(iter(runtimes))
