"""`labbot pending --user ID`: the open steps a person may decide, read from storage."""

from __future__ import annotations

from adapters.chat import Actor, EventHandler, Message, ThreadRef
from base.errors import ConfigError
from bot.pending import pending_for, pending_text
from bot.settings import Settings
from bot.wiring import NO_INVENTORY, make_inventory, open_runtime
from workflow.model import Device, Link, UnusableNode


class _NoChat:
    """The command line posts nothing: it only reads."""

    platform = "cli"

    async def run(self, handler: EventHandler) -> None:
        return None

    async def post(self, thread: ThreadRef, message: Message) -> str:
        return ""

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        return None


class _NoInventory:
    """Listing gates reads no device; a lab is not needed for it."""

    async def load(self) -> tuple[list[Device], list[Link], list[UnusableNode]]:
        raise ConfigError(NO_INVENTORY)


async def pending_report(settings: Settings, user: str) -> str:
    """What `user` (a platform user id: U0123, @alice:example.org, console:alice) may decide.

    The command line cannot ask Slack or Matrix about groups and power levels: rules naming
    them count as not met here (chat's `pending` asks the platform)."""
    configured = settings.inventory or settings.gns3_url
    inventory = make_inventory(settings) if configured else _NoInventory()
    async with open_runtime(settings, _NoChat(), inventory=inventory) as runtime:
        service = runtime.service
        found = await pending_for(
            Actor(user, user),
            workflow=service.workflow,
            audit=service.audit,
            authorizer=service.authorizer,
        )
        return pending_text(found, service.clock())
