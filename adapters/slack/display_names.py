"""Slack user id → display name, through users.info, cached per process."""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.chat import Actor

log = logging.getLogger(__name__)


class NameCache:
    """Actors keep the Slack user id (allow-lists name ids); the name is for people to read."""

    def __init__(self, client: AsyncWebClient) -> None:
        self._client = client
        self._names: dict[str, str] = {}

    async def actor(self, user_id: str, fallback: str = "") -> Actor:
        return Actor(id=user_id, name=await self.name(user_id, fallback), mention=f"<@{user_id}>")

    async def name(self, user_id: str, fallback: str = "") -> str:
        if user_id not in self._names:
            self._names[user_id] = await self._lookup(user_id) or fallback or user_id
        return self._names[user_id]

    async def _lookup(self, user_id: str) -> str:
        try:
            response = await self._client.users_info(user=user_id)
        except SlackApiError as exc:  # missing users:read scope, deleted user: keep going
            log.warning("users.info %s failed: %s", user_id, exc.response.get("error"))
            return ""
        user = response.get("user") or {}
        profile = user.get("profile") or {}
        return str(
            profile.get("display_name") or profile.get("real_name") or user.get("name") or ""
        )
