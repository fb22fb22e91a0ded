"""The app manifest asks Slack for exactly what the adapter listens to and calls."""

from __future__ import annotations

from pathlib import Path

import yaml

from adapters.slack.app import SLASH_COMMAND

MANIFEST = Path(__file__).parents[3] / "deploy" / "slack" / "manifest.yml"


def test_manifest_matches_the_adapter() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    settings = manifest["settings"]
    assert settings["socket_mode_enabled"] is True  # the default mode of `labbot serve`
    assert settings["interactivity"]["is_enabled"] is True  # buttons and the Modify modal
    events = set(settings["event_subscriptions"]["bot_events"])
    assert events == {"app_mention", "app_home_opened", "message.im"}
    (command,) = manifest["features"]["slash_commands"]
    assert command["command"] == SLASH_COMMAND
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert scopes == {
        "app_mentions:read",
        "channels:read",
        "chat:write",
        "chat:write.public",
        "commands",
        "files:write",
        "groups:read",
        "im:history",
        "usergroups:read",
        "users:read",
    }
    assert manifest["features"]["app_home"]["messages_tab_enabled"] is True  # DMs to labbot
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True  # "Waiting for you"
