"""The labs file's pod groups looked up again while labbot serves, so a pod added or removed
since the start needs no restart.

- A pod added (a GNS3 project `pod-4` created, a containerlab lab deployed) gets its runtime over
  the shared database and answers in its places from then on; the message that made labbot look
  is answered there. A gone pod found again while its runtime still serves keeps that runtime.
- A pod no longer found is gone: a new request in its place is refused in one line saying so;
  its open changes are still decided at their gates (an Execute finds no devices to push to);
  its runtime is let go once none is open. Found again, it gets a fresh runtime.
- When: every LABBOT_LABS_REFRESH_SECONDS (0: not on a timer), and when a place no lab answers
  for speaks — at most once per LABBOT_LABS_LOOKUP_SECONDS however many do; such a message
  waits for the next lookup, begun after it arrived.
- A lookup that fails (the GNS3 server down) leaves the known pods serving; it is logged once
  until it works again, and a place no lab answers for is told the pods could not be looked up.
- One log line per lookup that changed a group: "pods of ccna: added pod-4; gone pod-2".
- Each lookup reads the labs file's pod groups again: a pod found since is made as the file says
  then (its `students:`, a group added); labs already serving keep their rules until a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from base.errors import ConfigError
from bot import messages
from bot.labs.lab_settings import found_pods, pod_groups
from bot.labs.spec import GNS3Pods, Lab, PodGroup
from bot.runtime.wiring import Runtime
from bot.settings import Settings

__all__ = ["PodRefresh", "refreshing_pods"]

log = logging.getLogger(__name__)

RuntimeOf = Callable[[Lab, tuple[Lab, ...]], Runtime]  # a lab's runtime; every lab, for its rules
FindPods = Callable[[PodGroup], Awaitable[tuple[Lab, ...]]]


class PodPlaces(Protocol):
    """What the refresh changes: the router's labs, their runtimes and the pods gone."""

    labs: dict[str, Lab]
    runtimes: dict[str, Runtime]
    gone: set[str]
    look_up_pods: Callable[[], Awaitable[str]] | None

    def add(self, lab: Lab, runtime: Runtime) -> None: ...

    def place_taken(self, lab: Lab) -> tuple[str, str] | None: ...


@dataclass
class PodRefresh:
    groups: tuple[PodGroup, ...]
    router: PodPlaces
    runtime_of: RuntimeOf
    find: FindPods
    every: float  # lookups begin at least this many seconds apart
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    # the groups as the labs file says now (read at each lookup: a pod added to `students:` since
    # the start is found with its students); None: `groups` as they are
    reread: Callable[[], tuple[PodGroup, ...]] | None = None
    _started: float = 0.0  # when the last lookup began (the one at start, at first)
    _unreadable: str = ""  # why the labs file could not be read again, said once
    _unread: dict[str, str] = field(default_factory=dict)  # group -> why it could not be
    _refused: set[str] = field(default_factory=set)  # pods not added, said once
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        self._started = self.clock()

    async def lookup(self) -> str:
        """Return once a lookup begun after this call has ended (the one running is waited
        for, the next begins `every` seconds after it): "" when every group was looked up,
        else the line saying the pods could not be (which and why: in the log)."""
        asked = self.clock()
        async with self._lock:
            if self._started < asked:  # none began since: this caller looks (the others wait)
                await self.sleep(max(0.0, self._started + self.every - self.clock()))
                await self._look_up()
        if not self._unread:
            return ""
        return messages.LABS_PODS_UNREAD  # where and why only in the log: not for any place

    async def every_while(self, seconds: float) -> None:
        """Look the pods up every `seconds`, until cancelled."""
        while True:
            await self.sleep(seconds)
            async with self._lock:
                try:
                    await self._look_up()
                except Exception:  # a fault of ours: said, and the next round tries again
                    log.exception("looking the pods up again failed")

    async def _look_up(self) -> None:
        self._started = self.clock()
        await self._read_groups()
        for group in self.groups:
            await self._refresh(group)
        await self._let_go()

    async def _read_groups(self) -> None:
        """The groups as the labs file says now; a file broken since the start leaves them as
        last read (logged once)."""
        if self.reread is None:
            return
        try:
            self.groups = await asyncio.to_thread(self.reread)
        except ConfigError as error:
            if str(error) != self._unreadable:
                log.warning("%s; the pod groups as last read serve on", error)
            self._unreadable = str(error)
            return
        self._unreadable = ""

    async def _refresh(self, group: PodGroup) -> None:
        try:
            found = await self.find(group)
        except Exception as error:  # a server down, a folder gone: the known pods serve on
            if group.name not in self._unread:
                log.warning(
                    "pods of %s: cannot look them up (%s); the known serve on",
                    group.name,
                    _why(group, error),
                )
            self._unread[group.name] = _why(group, error)
            return
        if self._unread.pop(group.name, None) is not None:
            log.info("pods of %s: looked up again", group.name)
        router = self.router
        known = {n for n, lab in router.labs.items() if lab.group == group.name} - router.gone
        names = {lab.name for lab in found}
        # found again while its runtime still serves (its open changes, a push running): kept
        back = sorted(names & router.gone & set(router.runtimes))
        router.gone.difference_update(back)
        added = [
            lab.name
            for lab in found
            if lab.name not in known and lab.name not in back and self._added(lab)
        ]
        gone = sorted(known - names)
        router.gone.update(gone)
        news = [
            f"{what} {', '.join(pods)}"
            for what, pods in (("added", added), ("back", back), ("gone", gone))
            if pods
        ]
        if news:
            log.info("pods of %s: %s", group.name, "; ".join(news))

    def _added(self, lab: Lab) -> bool:
        """Give pod `lab` its runtime and places; a pod clashing with another lab is not added
        (said once)."""
        router = self.router
        other, taken = router.labs.get(lab.name), router.place_taken(lab)
        why, runtime = "", None
        if other is not None and other.group != lab.group:
            why = messages.LABS_POD_TAKEN.format(name=lab.name, group=lab.group)
        elif taken is not None:
            place, owner = taken
            why = messages.LABS_POD_PLACE_TAKEN.format(place=place, lab=lab.name, other=owner)
        else:
            try:
                runtime = self.runtime_of(lab, (*router.labs.values(), lab))
            except Exception as error:  # this pod only (a reference unset): the others serve on
                why = str(error)
        if runtime is None:
            if lab.name not in self._refused:
                log.warning("pods of %s: %s not added: %s", lab.group, lab.name, why)
            self._refused.add(lab.name)
            return False
        self._refused.discard(lab.name)
        router.add(lab, runtime)
        return True

    async def _let_go(self) -> None:
        """A gone pod's runtime once no change of it is open."""
        for name in sorted(self.router.gone & set(self.router.runtimes)):
            runtime = self.router.runtimes[name]
            try:
                still = await runtime.audit.open_change_records()
            except Exception as error:  # the database away: kept until a later round
                log.warning("pod %s is gone; its open changes not read: %s", name, error)
                continue
            if not any(record.lab == name for record in still):
                del self.router.runtimes[name]
                log.info("pod %s is gone and has no open change: its runtime let go", name)


def _why(group: PodGroup, error: Exception) -> str:
    source = group.source
    where = f"GNS3 at {source.url}" if isinstance(source, GNS3Pods) else str(source.under)
    said = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return f"{where}: {said[:200]}"


@asynccontextmanager
async def refreshing_pods(
    settings: Settings, router: PodPlaces, runtime_of: RuntimeOf
) -> AsyncIterator[PodRefresh | None]:
    """The pod groups of LABBOT_LABS looked up again while it is open (None: no group)."""
    groups = pod_groups(settings)
    if not groups:
        yield None
        return
    find = partial(found_pods, settings)
    refresh = PodRefresh(
        groups,
        router,
        runtime_of,
        find,
        settings.labs_lookup_seconds,
        reread=partial(pod_groups, settings),
    )
    router.look_up_pods = refresh.lookup
    if not settings.labs_refresh_seconds:
        yield refresh
        return
    timer = asyncio.create_task(refresh.every_while(settings.labs_refresh_seconds))
    try:
        yield refresh
    finally:
        timer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await timer
