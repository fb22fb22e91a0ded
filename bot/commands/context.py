"""What a chat command handler gets: the request, the thread's voice and the stores it needs.

A handler receives this narrow context — say and tell in the thread, read the thread's change,
start or decide a change through the decision service's own entry points — never the service.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from adapters.chat import Decision, Message, Request
from base.masking import SecretMask
from bot.commands.parsing import Command
from bot.policy.authorize import Authorizer
from bot.ports import GateReader
from bot.topology.thread_pictures import LabPictures
from storage.audit_store import AuditStore
from storage.template_store import TemplateStore
from workflow.api import ApprovedTemplate, Finished, PendingGate, Step
from workflow.phases.previews import DevicePreview

__all__ = ["CommandContext", "Commands", "ThreadChange"]


class ThreadChange(GateReader, Protocol):
    """What commands read of a thread's change (`ChangeWorkflow` is one)."""

    async def outcome(self, thread_id: str) -> Finished | None: ...

    async def approved_template(self, thread_id: str) -> ApprovedTemplate | None: ...

    async def previews_of(self, thread_id: str, change_id: str) -> dict[str, DevicePreview]: ...

    async def last_step(self, thread_id: str, change_id: str) -> Step | None: ...


@dataclass(frozen=True)
class CommandContext:
    request: Request
    command: Command
    say: Callable[[Message], Awaitable[object]]  # post in the request's thread
    show: Callable[[PendingGate | Finished], Awaitable[None]]  # post a step as the service does
    refuse: Callable[[str], Awaitable[None]]  # tell the person only, and record the refusal
    may_curate: Callable[[], Awaitable[bool]]  # may this person save/pin templates (else told)
    start_change: Callable[[str, str | None], Awaitable[object]]  # text, rollback_of
    decide: Callable[[Decision], Awaitable[None]]  # as if the person had clicked
    changes: ThreadChange
    audit: AuditStore
    authorizer: Authorizer  # the approval policy with the platform's facts (who may decide)
    clock: Callable[[], datetime]
    mask: SecretMask  # how secret values are shown (reads, audit views)
    templates: TemplateStore | None = None
    pictures: LabPictures | None = None  # the lab drawn (topology command)

    @property
    def thread_key(self) -> str:
        return self.request.thread.key


CommandHandler = Callable[[CommandContext], Awaitable[None]]


@dataclass(frozen=True)
class Commands:
    """The chat commands by name, and the stores they read (bot.runtime.wiring gives the real
    ones)."""

    handlers: Mapping[str, CommandHandler]
    changes: ThreadChange
    audit: AuditStore
    templates: TemplateStore | None = None
    pictures: LabPictures | None = None
