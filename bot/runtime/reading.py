"""A runtime for command-line reads (pending steps, reports): no chat, no lab needed; and each
lab's rules, for reads that judge per lab (`labbot pending` under a labs file)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from adapters.chat import EventHandler, Message, ThreadRef
from base.errors import ConfigError
from bot.labs.lab_settings import settings_for
from bot.labs.spec import Lab
from bot.policy.authorize import Authorizer
from bot.policy.facts import NoDirectory, People
from bot.records.place import open_for_reading
from bot.runtime.lab_router import lab_policy
from bot.runtime.wiring import (
    NO_INVENTORY,
    Runtime,
    agents_from,
    limits_from,
    make_inventory,
    open_runtime,
)
from bot.settings import Settings
from storage.ports import DecisionRecords
from workflow.model import Device, Link, UnusableNode

__all__ = ["lab_authorizers", "reading_runtime"]


class _NoChat:
    """The command line posts nothing: it only reads."""

    platform = "cli"

    async def run(self, handler: EventHandler) -> None:
        return None

    async def post(self, thread: ThreadRef, message: Message) -> str:
        return ""

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        return None

    async def close_gate(
        self, thread: ThreadRef, message_id: str, footer: str, mentions: tuple[str, ...] = ()
    ) -> None:
        return None


class _NoInventory:
    """Reading gates and records touches no device; a lab is not needed for it."""

    lab = ""

    async def load(self) -> tuple[list[Device], list[Link], list[UnusableNode]]:
        raise ConfigError(NO_INVENTORY)


@asynccontextmanager
async def reading_runtime(settings: Settings) -> AsyncIterator[Runtime]:
    """The configured storage and workflow, for reading what they hold: the database must be
    there already (never created by a read)."""
    await open_for_reading(settings)
    configured = settings.inventory or settings.gns3_url
    inventory = make_inventory(settings) if configured else _NoInventory()
    async with open_runtime(settings, _NoChat(), inventory=inventory) as runtime:
        yield runtime


def lab_authorizers(
    settings: Settings, chosen: tuple[Lab, ...], labs: tuple[Lab, ...], audit: DecisionRecords
) -> dict[str, Authorizer]:
    """Who may do what in each lab of `chosen` (of the labs file's `labs`), by its own rules,
    as its runtime judges it; the command line cannot ask a platform about groups or power
    levels (rules naming them count as not met)."""
    judges = {}
    for lab in chosen:
        own = settings_for(settings, lab)
        policy = lab_policy(own, lab, labs)
        people = People(policy, NoDirectory())
        limits, agents = limits_from(own), agents_from(own)
        judges[lab.name] = Authorizer(policy, people, audit, limits, agents, lab.name)
    return judges
