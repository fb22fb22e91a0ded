"""What the MCP tools ask of labbot (the bot implements it): each call names the agent making it
and answers a JSON object in the standard response format."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

Json = dict[str, Any]
# progress so far, the total when known, and what it is: sent as MCP progress notifications
Progress = Callable[[float, float | None, str], Awaitable[None]]


class AgentDoor(Protocol):
    """`lab`: the lab a call works in, as the agent named it (None: not named)."""

    async def lab(self, agent: str, lab: str | None = None) -> Json: ...

    async def show(
        self, agent: str, command: str, devices: list[str], lab: str | None = None
    ) -> Json: ...

    async def templates(self, agent: str, lab: str | None = None) -> Json: ...

    async def request_change(
        self,
        agent: str,
        text: str,
        devices: list[str],
        template: str | None,
        lab: str | None = None,
    ) -> Json: ...

    async def change_status(self, agent: str, change_id: str, lab: str | None = None) -> Json: ...

    async def wait_for_change(
        self,
        agent: str,
        change_id: str,
        seconds: float,
        progress: Progress,
        lab: str | None = None,
    ) -> Json: ...


class Item(BaseModel):
    """One device, template or link of an answer; tools add their own fields."""

    model_config = ConfigDict(extra="allow")

    id: str
    name: str
    status: Literal["success", "failed"]
    result: Any = None  # what it gave, when it succeeded
    error: str | None = None  # why it failed


class Answer(BaseModel):
    """labbot's standard response: counts derived from `data`; `error` when the call failed
    as a whole; `metadata` says what the tool adds (a change's step, its thread, approvers)."""

    model_config = ConfigDict(extra="allow")

    success: bool
    total: int
    successful: int
    failed: int
    data: list[Item]
    error: str | None = None
    metadata: dict[str, Any] = {}
