"""Slack user groups (`@netops`) → member ids, read with usergroups.list and
usergroups.users.list (scope `usergroups:read`), kept for a minute.

A group Slack does not know, or a call Slack refuses, has no members: the policy then refuses
rather than guessing."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

__all__ = ["UserGroups"]

log = logging.getLogger(__name__)

KEEP_SECONDS = 60.0


class UserGroups:
    def __init__(
        self,
        client: AsyncWebClient,
        keep_seconds: float = KEEP_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._keep = keep_seconds
        self._clock = clock
        self._ids: tuple[float, dict[str, str]] | None = None  # handle -> group id
        self._members: dict[str, tuple[float, frozenset[str]]] = {}

    async def members(self, group: str) -> frozenset[str]:
        """Member user ids of the group with this handle (`@netops` or `netops`)."""
        handle = group.removeprefix("@")
        cached = self._members.get(handle)
        if cached and self._clock() - cached[0] < self._keep:
            return cached[1]
        group_id = (await self._group_ids()).get(handle)
        members = await self._users_of(group_id) if group_id else frozenset()
        if group_id is None:
            log.warning("Slack has no user group @%s (named in a policy rule)", handle)
        self._members[handle] = (self._clock(), members)
        return members

    async def _group_ids(self) -> dict[str, str]:
        if self._ids and self._clock() - self._ids[0] < self._keep:
            return self._ids[1]
        try:
            response = await self._client.usergroups_list()
        except SlackApiError as exc:
            log.warning("usergroups.list refused: %s", exc.response.get("error"))
            return {}
        groups: list[dict[str, str]] = response.get("usergroups") or []
        ids = {group["handle"]: group["id"] for group in groups}
        self._ids = (self._clock(), ids)
        return ids

    async def _users_of(self, group_id: str) -> frozenset[str]:
        try:
            response = await self._client.usergroups_users_list(usergroup=group_id)
        except SlackApiError as exc:
            log.warning("usergroups.users.list refused: %s", exc.response.get("error"))
            return frozenset()
        return frozenset(response.get("users", []))
