"""Many labs, one bot: a chat event goes to the runtime of the lab its channel or room answers
for (each lab its own inventory, gateway, policy, limits and decision service, over the shared
database and adapter). A place that is no lab's is told so in one line. A device is named
within its lab: R1 of pod-3 is only ever pod-3's runtime's R1.

A place in the labs file is an id (`C0123`, `!room:hs`) or a name (`#pod-3`, `#pod-3:hs`): a
name is matched by what the adapter says the place is called (adapters.chat.PlaceNames).

Pods change while it serves (bot.runtime.pod_refresh): a place no lab answers for has the pods
looked up again before it is told so; a pod gone takes no new request, its open changes are still
decided at their gates."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace

from adapters.chat import (
    ChatAdapter,
    ChatEvent,
    Decision,
    HomeOpened,
    Message,
    PlaceNames,
    ThreadRef,
)
from bot import messages
from bot.labs.lab_settings import configured_labs, settings_for
from bot.labs.pods import students_elsewhere
from bot.labs.spec import Lab
from bot.policy.approvers import policy_from
from bot.policy.rules import Policy
from bot.runtime.lab_homes import home_in_labs
from bot.runtime.pod_refresh import refreshing_pods
from bot.runtime.wiring import Runtime, lab_runtime, open_shared
from bot.settings import Settings

__all__ = ["lab_policy", "open_lab_router"]

log = logging.getLogger(__name__)


def lab_policy(own: Settings, lab: Lab, labs: tuple[Lab, ...]) -> Policy:
    """Lab `lab`'s rules: its own settings' (`own`, bot.labs.lab_settings.settings_for), named
    by the lab, with the other pods' students refused in it; whether the lab names its
    approvers or has the deployment's (LABBOT_APPROVERS), for a refusal to say which."""
    return replace(
        policy_from(own),
        lab=lab.name,
        students_elsewhere=students_elsewhere(lab, labs),
        lab_names_approvers=bool(lab.approvers or lab.instructors or lab.students),
    )


def places_of(lab: Lab, platform: str) -> tuple[str, ...]:
    return {"slack": lab.slack, "matrix": lab.matrix}.get(platform, ())


@dataclass
class LabRouter:
    """Which lab a place answers for, and that lab's runtime."""

    adapter: ChatAdapter
    labs: dict[str, Lab]
    runtimes: dict[str, Runtime]
    _places: dict[str, str] = field(default_factory=dict)  # place -> lab, for this platform
    _known: dict[str, str | None] = field(default_factory=dict)  # channel -> lab (or none)
    gone: set[str] = field(default_factory=set)  # pods no longer found: no new requests
    # the pods looked up again (rate-limited); "" or the one line saying they could not be
    look_up_pods: Callable[[], Awaitable[str]] | None = None

    def __post_init__(self) -> None:
        for lab in self.labs.values():
            for place in places_of(lab, self.adapter.platform):
                self._places[place] = lab.name

    async def lab_of(self, thread: ThreadRef) -> str | None:
        """The lab `thread`'s channel answers for (by its id, else by its name), or None."""
        channel = thread.channel
        if channel in self._places:
            return self._places[channel]
        if channel not in self._known:
            names: tuple[str, ...] = ()
            if isinstance(self.adapter, PlaceNames):
                names = await self.adapter.place_names(channel)
            found = [self._places[name] for name in names if name in self._places]
            if not names:  # a name not known now may be told next time (Slack down, sync late)
                return None
            self._known[channel] = found[0] if found else None
        return self._known[channel]

    async def handle(self, event: ChatEvent) -> None:
        """The adapter's one handler: the event to its lab's decision service."""
        if isinstance(event, HomeOpened):  # a person's home, not a place: of each lab of theirs
            if self.runtimes:  # every pod gone and let go: no lab to show
                await self.runtimes[home_in_labs(self.runtimes, event.actor)].service.handle(event)
            return
        lab = await self.lab_of(event.thread)
        if lab is None or lab in self.gone:
            lab = await self._placed_since(event, lab)
            if lab is None:
                return
        await self.runtimes[lab].service.handle(event)

    async def _placed_since(self, event: ChatEvent, lab: str | None) -> str | None:
        """The lab of a place no lab answered for (a pod found since), or of a gone pod (only a
        decision on a change it has open); else None, the place told why in one line."""
        kind = "room" if self.adapter.platform == "matrix" else "channel"
        said = messages.LABS_NOT_HERE.format(kind=kind)
        looks = lab is None or not isinstance(event, Decision)  # a gone pod may be back
        if looks and self.look_up_pods is not None:
            unread = await self.look_up_pods()
            lab = await self.lab_of(event.thread)
            said = unread if unread and lab is None else said
        if lab in self.gone:
            if isinstance(event, Decision) and lab in self.runtimes:
                return lab
            said, lab = messages.LABS_POD_GONE.format(pod=lab), None
        if lab is None:
            with contextlib.suppress(Exception):  # a place we cannot post in: nothing to tell
                await self.adapter.post(event.thread, Message(said, level="warning"))
        return lab

    def add(self, lab: Lab, runtime: Runtime) -> None:
        """A pod found since the start (or found again), answering in its places from now."""
        self.labs[lab.name], self.runtimes[lab.name] = lab, runtime
        self.gone.discard(lab.name)
        for place in places_of(lab, self.adapter.platform):
            self._places[place] = lab.name
        self._known.clear()  # a place told it was no lab's may be this pod's

    def place_taken(self, lab: Lab) -> tuple[str, str] | None:
        """(a place of `lab`'s, the other lab already answering there), if any."""
        for other in self.labs.values():
            both = {*lab.slack, *lab.matrix} & {*other.slack, *other.matrix}
            if other.name != lab.name and both:
                return min(both), other.name
        return None


@asynccontextmanager
async def open_lab_router(settings: Settings, adapter: ChatAdapter) -> AsyncIterator[LabRouter]:
    """One runtime per lab of LABBOT_LABS over one database, behind a router, closed on exit;
    the pod groups looked up again while it serves (bot.runtime.pod_refresh)."""
    labs = await configured_labs(settings)
    async with open_shared(settings, adapter) as shared:

        def runtime_of(lab: Lab, labs: tuple[Lab, ...]) -> Runtime:
            own = settings_for(settings, lab)
            policy = lab_policy(own, lab, labs)
            return lab_runtime(own, adapter, shared, lab_name=lab.name, policy=policy)

        runtimes = {lab.name: runtime_of(lab, labs) for lab in labs}
        log.info("serving %d lab(s): %s", len(labs), ", ".join(runtimes))
        router = LabRouter(adapter, {lab.name: lab for lab in labs}, runtimes)
        async with refreshing_pods(settings, router, runtime_of):
            yield router
